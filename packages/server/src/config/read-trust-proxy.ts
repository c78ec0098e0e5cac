import { isIP } from 'node:net';

/**
 * Which proxies in front of the service may name the client in `X-Forwarded-For` (what Fastify's
 * `trustProxy` takes): none, a hop count, or the proxies' addresses and networks. `true` trusts
 * every hop, so the left-most address (the one the client wrote itself) becomes the client's.
 */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for whole address families (loopback, link-local, unique-local). */
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `PRESENCE_TRUST_PROXY`: unset, empty, `false` or `0` → no proxy; `1`, `2` … → that many proxies
 * (the address the outermost one saw is the client's); a comma-separated list of addresses and
 * CIDRs → exactly those proxies; `true` → every hop (kept for compatibility, warned about at start).
 * Anything else throws with what to write instead.
 */
export function readTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true') return true;
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new Error(`${text} hops is not a plausible proxy chain (1 to 32)`);
    return hops;
  }
  const entries = text.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isTrustedEntry(e));
  if (bad.length > 0) {
    throw new Error(
      `${bad.join(', ')}: expected a hop count (e.g. 1) or comma-separated proxy addresses and CIDRs (e.g. 10.0.0.0/8,fd00::/8)`,
    );
  }
  return entries;
}

function isTrustedEntry(entry: string): boolean {
  if (NAMED.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The start-up warning for `true`, or undefined for any other setting. */
export function trustProxyWarning(trust: TrustProxy): string | undefined {
  if (trust !== true) return undefined;
  return (
    'PRESENCE_TRUST_PROXY=true trusts every X-Forwarded-For hop, so a client chooses its own address ' +
    '(rate limits and logs): set the number of proxies in front of the service (e.g. PRESENCE_TRUST_PROXY=1) ' +
    'or their addresses and CIDRs (e.g. PRESENCE_TRUST_PROXY=10.0.0.0/8)'
  );
}

/**
 * The setting as Fastify takes it. A hop count becomes a function of the hop index (0 is the
 * socket's peer): Fastify 5 ignores a plain number (it trusts no hop), and `n` trusted hops mean
 * the address the outermost of the `n` proxies saw is the client's, whatever the client wrote
 * further left.
 */
export function fastifyTrustProxy(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  if (trust === 0) return false;
  return (_address, hop) => hop < trust;
}
