/**
 * The service keys a guard trusts: pinned (air-gapped executors: a saved keys.json), or fetched
 * from `<service>/.well-known/presence/keys.json` and cached. A key id the cache does not know
 * triggers one re-fetch (at most every `refetchSeconds`), so a rotation needs no restart. A failed
 * fetch is retried after `retrySeconds`, not on every request while the service is down.
 */
import type { ServiceKey } from '#contract';

export interface KeySource {
  /** The trusted keys; `kid` names the key the evidence was signed with, when known. */
  keys(kid?: string): Promise<readonly ServiceKey[]>;
}

export interface FetchedKeysOptions {
  /** e.g. https://presence.example/.well-known/presence/keys.json */
  url: string;
  /** How long a fetched document is used without asking again. Default 3600. */
  cacheSeconds?: number;
  /** The shortest time between two fetches for an unknown key id. Default 30. */
  refetchSeconds?: number;
  /**
   * After a failed fetch, no new one for this long. Default 5. Meanwhile the cached document is used
   * while still within cacheSeconds; without one, the guard refuses (check `serviceSignature`).
   */
  retrySeconds?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

export function pinnedKeys(keys: readonly ServiceKey[] | { keys: readonly ServiceKey[] }): KeySource {
  const list = Array.isArray(keys) ? keys : (keys as { keys: readonly ServiceKey[] }).keys;
  return { keys: () => Promise.resolve(list) };
}

export function fetchedKeys(options: FetchedKeysOptions): KeySource {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? globalThis.fetch;
  let cached: { keys: readonly ServiceKey[]; at: number } | undefined;
  let failed: { error: unknown; at: number } | undefined;
  let inFlight: Promise<readonly ServiceKey[]> | undefined;
  const load = () =>
    (inFlight ??= (async () => {
      const response = await doFetch(options.url, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`GET ${options.url} answered ${response.status}`);
      const body = (await response.json()) as { keys?: unknown };
      if (!Array.isArray(body.keys)) throw new Error(`${options.url} is not a keys.json document`);
      cached = { keys: body.keys as ServiceKey[], at: now() };
      failed = undefined;
      return cached.keys;
    })().finally(() => (inFlight = undefined)));
  return {
    async keys(kid) {
      const age = cached === undefined ? Infinity : now() - cached.at;
      const fresh = age < (options.cacheSeconds ?? 3600) * 1000;
      const known = kid === undefined || cached?.keys.some((k) => k.kid === kid) === true;
      if (fresh && (known || age < (options.refetchSeconds ?? 30) * 1000)) return cached!.keys;
      // A fetch is due. After a failed one, wait retrySeconds: no request per call while the service is down.
      const retry = options.retrySeconds ?? 5;
      if (failed !== undefined && now() - failed.at < retry * 1000) {
        if (fresh) return cached!.keys;
        const reason = failed.error instanceof Error ? failed.error.message : String(failed.error);
        throw new Error(`${reason} (no new fetch until ${retry} s after that failure)`, {
          cause: failed.error,
        });
      }
      try {
        return await load();
      } catch (error) {
        failed = { error, at: now() };
        if (fresh) return cached!.keys;
        throw error;
      }
    },
  };
}
