/**
 * The service keys a guard trusts: pinned (air-gapped executors: a saved keys.json), or fetched
 * from `<service>/.well-known/presence/keys.json` and cached. A key id the cache does not know
 * triggers one re-fetch (at most every `refetchSeconds`), so a rotation needs no restart.
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
  let inFlight: Promise<readonly ServiceKey[]> | undefined;
  const load = () =>
    (inFlight ??= (async () => {
      const response = await doFetch(options.url, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`GET ${options.url} answered ${response.status}`);
      const body = (await response.json()) as { keys?: unknown };
      if (!Array.isArray(body.keys)) throw new Error(`${options.url} is not a keys.json document`);
      cached = { keys: body.keys as ServiceKey[], at: now() };
      return cached.keys;
    })().finally(() => (inFlight = undefined)));
  return {
    async keys(kid) {
      const age = cached === undefined ? Infinity : now() - cached.at;
      if (age >= (options.cacheSeconds ?? 3600) * 1000) return load();
      const known = kid === undefined || cached!.keys.some((k) => k.kid === kid);
      if (!known && age >= (options.refetchSeconds ?? 30) * 1000) return load();
      return cached!.keys;
    },
  };
}
