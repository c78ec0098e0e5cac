/**
 * Fixed one-minute windows with rate-limiter-flexible: in Redis when REDIS_URL is set, so every
 * instance counts against the same windows, otherwise in process memory. When Redis fails (down,
 * not yet connected, too slow) a check falls back to a per-process window of the same size: the
 * request is still limited, never failed. The switch is counted, and logged once each way.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Metrics } from '../observability/create-metrics.js';

export interface LimitDecision {
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  readonly limit: number;
  /** Counts one request against `key`'s window. */
  consume(key: string): Promise<LimitDecision>;
  /** Reads `key`'s window without counting: not allowed once every point is used. */
  peek(key: string): Promise<LimitDecision>;
}

export interface RateLimiters {
  /** A limiter of `perMinute` points per key; undefined when `perMinute` is 0 (off). */
  create(name: string, perMinute: number): RateLimiter | undefined;
  /** Waits (at most `timeoutMs`) for Redis to connect, so start-up does not begin degraded. */
  ready(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface RateLimitersOptions {
  redisUrl: string | undefined;
  prefix: string;
  metrics: Pick<Metrics, 'rateLimitStoreDegraded' | 'rateLimitStoreErrors'>;
  logger: Logger | false;
  /** A Redis command slower than this counts as a failure (the check falls back). */
  commandTimeoutMs?: number;
}

const WINDOW_SECONDS = 60;

/** ioredis is imported only when REDIS_URL is set (it is the heaviest module to load). */
export async function createRateLimiters(options: RateLimitersOptions): Promise<RateLimiters> {
  const redis = options.redisUrl === undefined ? undefined : await openRedis(options);
  const state = trackStoreState(options);
  return {
    create(name, perMinute) {
      if (perMinute <= 0) return undefined;
      const settings = {
        points: perMinute,
        duration: WINDOW_SECONDS,
        keyPrefix: `${options.prefix}:rl:${name}`,
      };
      const memory = new RateLimiterMemory(settings);
      const shared =
        redis && new RateLimiterRedis({ ...settings, storeClient: redis, rejectIfRedisNotReady: true });
      const run = async (op: (l: RateLimiterMemory | RateLimiterRedis) => Promise<RateLimiterRes | null>) => {
        if (shared) {
          try {
            const res = await settle(op(shared));
            state.shared();
            return res;
          } catch (error) {
            state.failed(error);
          }
        }
        return settle(op(memory));
      };
      return {
        limit: perMinute,
        consume: async (key) => decide(perMinute, await run((l) => l.consume(key)), false),
        peek: async (key) => decide(perMinute, await run((l) => l.get(key)), true),
      };
    },
    async ready(timeoutMs) {
      if (!redis || redis.status === 'ready') return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        redis.once('ready', resolve);
      });
      clearTimeout(timer);
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** A refusal is a RateLimiterRes rejection (an answer); any other rejection is a store failure. */
async function settle(pending: Promise<RateLimiterRes | null>): Promise<RateLimiterRes | null> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}

function decide(limit: number, res: RateLimiterRes | null, peeking: boolean): LimitDecision {
  const used = res?.consumedPoints ?? 0;
  return {
    allowed: peeking ? used < limit : used <= limit,
    limit,
    remaining: Math.max(0, limit - used),
    resetSeconds: Math.max(0, Math.ceil((res?.msBeforeNext ?? WINDOW_SECONDS * 1000) / 1000)),
  };
}

/**
 * Commands fail at once while disconnected (no offline queue, no retries), so a Redis outage
 * costs each check nothing but the fallback; ioredis keeps reconnecting in the background.
 */
async function openRedis(options: RateLimitersOptions): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(options.redisUrl!, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  // Connection errors surface through the checks (and their one log line), not as events.
  redis.on('error', () => undefined);
  return redis;
}

function trackStoreState({ metrics, logger, redisUrl }: RateLimitersOptions) {
  let degraded = false;
  metrics.rateLimitStoreDegraded.set(0);
  return {
    shared() {
      if (!degraded) return;
      degraded = false;
      metrics.rateLimitStoreDegraded.set(0);
      if (logger) logger.info('rate limits: Redis answers again; limits are shared across instances');
    },
    failed(error: unknown) {
      metrics.rateLimitStoreErrors.inc();
      if (degraded) return;
      degraded = true;
      metrics.rateLimitStoreDegraded.set(1);
      const reason = error instanceof Error ? error.message : String(error);
      const redis = redisUrl === undefined ? undefined : redactUrl(redisUrl);
      if (logger)
        logger.warn({ redis, reason }, 'rate limits: Redis unavailable; holding limits per process');
    },
  };
}

/** The URL without its password, for logs. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}
