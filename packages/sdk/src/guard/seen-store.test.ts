import { describe, expect, it } from 'vitest';
import { memorySeenStore, redisSeenStore } from './seen-store.js';

describe('memorySeenStore', () => {
  it('accepts a key once within its time to live, and again after it', async () => {
    let now = 1_000;
    const store = memorySeenStore({ now: () => now });
    expect(await store.claim('receipt:a', 60_000)).toBe(true);
    expect(await store.claim('receipt:a', 60_000)).toBe(false);
    expect(await store.claim('receipt:b', 60_000)).toBe(true);
    now += 60_000;
    expect(await store.claim('receipt:a', 60_000)).toBe(true);
  });
});

describe('redisSeenStore', () => {
  it('sends SET key 1 PX ms NX under its prefix and reads "OK" as new', async () => {
    const calls: unknown[][] = [];
    const answers: unknown[] = ['OK', null];
    const store = redisSeenStore(
      {
        set: (...args: unknown[]) => {
          calls.push(args);
          return Promise.resolve(answers.shift());
        },
      },
      { prefix: 'exec:' },
    );
    expect(await store.claim('receipt:a', 1500.5)).toBe(true);
    expect(await store.claim('receipt:a', 1500.5)).toBe(false);
    expect(calls[0]).toEqual(['exec:receipt:a', '1', 'PX', 1501, 'NX']);
  });
});
