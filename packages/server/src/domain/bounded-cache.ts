/**
 * A bounded in-memory cache: at most `maxEntries` (least recently used out first) and, when
 * `ttlMs` is set, no entry older than that. One per purpose and process (compose.ts); never a
 * module singleton. Time comes from the injected clock.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, { value: V; at: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { maxEntries: number; ttlMs?: number; now: () => number }) {
    this.#maxEntries = Math.max(1, options.maxEntries);
    this.#ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#now() - hit.at >= this.#ttlMs) return undefined;
    this.#entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, at: this.#now() });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/**
 * A BoundedCache (with a TTL) for values that can change: read through `load` on a miss, and
 * `forget` a key after a change this process committed. A load that was running while any key
 * was forgotten is returned to its caller but not kept, so an entry read before a change can not
 * be stored after it. Changes committed by other processes are seen once the TTL has passed.
 */
export class ReadThroughCache<V> {
  readonly #entries: BoundedCache<V>;
  #generation = 0;

  constructor(options: { maxEntries: number; ttlMs: number; now: () => number }) {
    this.#entries = new BoundedCache<V>(options);
  }

  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.#generation;
    const value = await load();
    if (value !== undefined && generation === this.#generation) this.#entries.set(key, value);
    return value;
  }

  forget(key: string): void {
    this.#generation += 1;
    this.#entries.delete(key);
  }
}
