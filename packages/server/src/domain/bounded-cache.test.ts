import { describe, expect, it } from 'vitest';
import { ReadThroughCache } from './bounded-cache.js';

function cacheAt(start = 1_000) {
  const clock = { ms: start };
  const cache = new ReadThroughCache<string>({ maxEntries: 2, ttlMs: 100, now: () => clock.ms });
  const loads: string[] = [];
  const loader = (key: string, value: string | undefined) => async () => {
    loads.push(key);
    return value;
  };
  return { clock, cache, loads, loader };
}

describe('ReadThroughCache', () => {
  it('loads on a miss, then serves the value until its lifetime has passed', async () => {
    const { clock, cache, loads, loader } = cacheAt();
    expect(await cache.read('a', loader('a', 'v1'))).toBe('v1');
    clock.ms += 99;
    expect(await cache.read('a', loader('a', 'v2'))).toBe('v1');
    clock.ms += 1;
    expect(await cache.read('a', loader('a', 'v2'))).toBe('v2');
    expect(loads).toEqual(['a', 'a']);
  });

  it('keeps nothing for a key the loader did not find', async () => {
    const { cache, loads, loader } = cacheAt();
    expect(await cache.read('a', loader('a', undefined))).toBeUndefined();
    expect(await cache.read('a', loader('a', 'v1'))).toBe('v1');
    expect(loads).toEqual(['a', 'a']);
  });

  it('loads again after forget', async () => {
    const { cache, loads, loader } = cacheAt();
    await cache.read('a', loader('a', 'v1'));
    cache.forget('a');
    expect(await cache.read('a', loader('a', 'v2'))).toBe('v2');
    expect(loads).toEqual(['a', 'a']);
  });

  it('does not keep a value whose load was running when a key was forgotten', async () => {
    const { cache, loader } = cacheAt();
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const stale = cache.read('a', async () => {
      await held;
      return 'read before the change';
    });
    cache.forget('a');
    release();
    expect(await stale).toBe('read before the change');
    expect(await cache.read('a', loader('a', 'after the change'))).toBe('after the change');
  });

  it('holds at most maxEntries, the least recently read out first', async () => {
    const { cache, loads, loader } = cacheAt();
    await cache.read('a', loader('a', '1'));
    await cache.read('b', loader('b', '2'));
    await cache.read('a', loader('a', 'x'));
    await cache.read('c', loader('c', '3'));
    expect(await cache.read('a', loader('a', 'x'))).toBe('1');
    expect(await cache.read('b', loader('b', '2 again'))).toBe('2 again');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });
});
