/**
 * Where a guard remembers the evidence it accepted, so that the same receipt or approval set
 * never executes twice. `claim` is atomic: of two concurrent claims of one key, exactly one wins.
 */
export interface SeenStore {
  /** True when `key` was not seen before (and is now remembered for `ttlMs`); false otherwise. */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/** In-process memory: right for one executor process; use a shared store for several. */
export function memorySeenStore(options: { now?: () => number } = {}): SeenStore {
  const now = options.now ?? Date.now;
  const expires = new Map<string, number>();
  let nextSweep = 0;
  return {
    claim(key, ttlMs) {
      const at = now();
      if (at >= nextSweep) {
        for (const [k, until] of expires) if (until <= at) expires.delete(k);
        nextSweep = at + 60_000;
      }
      const until = expires.get(key);
      if (until !== undefined && until > at) return Promise.resolve(false);
      expires.set(key, at + ttlMs);
      return Promise.resolve(true);
    },
  };
}

/**
 * The one Redis command the store needs, as node-redis v4+ (`set(k, v, {PX, NX})` differs) and
 * ioredis spell it: `SET key value PX ms NX`, resolving to "OK" when set and null when the key
 * existed. With node-redis, pass `{ set: (k, v, _px, ms) => client.set(k, v, { PX: ms, NX: true }) }`.
 */
export interface RedisSetClient {
  set(key: string, value: string, px: 'PX', ttlMs: number, nx: 'NX'): Promise<unknown>;
}

/** Shared by every executor process that talks to the same Redis. */
export function redisSeenStore(client: RedisSetClient, options: { prefix?: string } = {}): SeenStore {
  const prefix = options.prefix ?? 'presence:seen:';
  return {
    async claim(key, ttlMs) {
      const answer = await client.set(`${prefix}${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return answer === 'OK';
    },
  };
}
