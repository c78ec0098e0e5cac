import { toString as qrSvgOf } from 'qrcode';

/** The most QR codes kept; a page view of a recent link then costs no QR encoding (≈ 2 ms each). */
const MAX_CACHED = 1000;

/**
 * SVG QR codes of page URLs, made by the `qrcode` library and kept for the most recent URLs
 * (a code depends only on its URL). One per page context: no module-level state. A code holds
 * its link's token, as the page itself does: kept in this process's memory only, never stored.
 */
export function createQrCodes(maxCached = MAX_CACHED) {
  const cache = new Map<string, string>();
  return async (url: string): Promise<string> => {
    const hit = cache.get(url);
    if (hit !== undefined) return hit;
    const svg = await qrSvgOf(url, { type: 'svg', margin: 2 });
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
    cache.set(url, svg);
    return svg;
  };
}
