/**
 * When to try again. Ten attempts over about three days: the first at once, then after about
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±15 % jitter, so retries of many
 * deliveries spread out). A Retry-After later than the schedule wins, up to 24 h.
 */
import type { Random } from '../ports.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;

const JITTER = 0.15;
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** An endpoint whose attempts have all failed for this long is disabled. */
export const AUTO_DISABLE_AFTER_MS = 5 * 24 * HOUR;

/**
 * success: 2xx. gone: 410, which disables the endpoint. retry: no response (network error,
 * timeout, refused address), 408, 429 and 5xx. fail: redirects and every other 4xx, which
 * retrying the same signed request would not change (the tenant can redeliver or recover).
 */
export type ResponseClass = 'success' | 'retry' | 'gone' | 'fail';

export function classifyResponse(statusCode: number | null): ResponseClass {
  if (statusCode === null) return 'retry';
  if (statusCode >= 200 && statusCode < 300) return 'success';
  if (statusCode === 410) return 'gone';
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) return 'retry';
  return 'fail';
}

/** Delay before the next attempt after `retryCount` earlier failures; null when the schedule is spent. */
export function nextRetryDelay(
  retryCount: number,
  random: Random,
  retryAfterMs: number | null,
): number | null {
  const base = RETRY_DELAYS_MS[retryCount];
  if (base === undefined) return null;
  const unit = random.bytes(4).readUInt32BE(0) / 0xffffffff;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * unit));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}
