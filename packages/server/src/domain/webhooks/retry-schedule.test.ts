import { describe, expect, it } from 'vitest';
import type { Random } from '../ports.js';
import { classifyResponse, nextRetryDelay, RETRY_DELAYS_MS } from './retry-schedule.js';

const fixed = (byte: number): Random => ({ bytes: (n) => Buffer.alloc(n, byte) });

describe('retry schedule', () => {
  it('spans about three days over ten attempts', () => {
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(RETRY_DELAYS_MS).toHaveLength(9);
    expect(total / 86_400_000).toBeGreaterThan(3);
    expect(total / 86_400_000).toBeLessThan(3.3);
    expect(nextRetryDelay(9, fixed(0), null)).toBeNull();
  });

  it('jitters each delay within ±15 %', () => {
    expect(nextRetryDelay(0, fixed(0), null)).toBe(4250);
    expect(nextRetryDelay(0, fixed(0xff), null)).toBe(5750);
    expect(nextRetryDelay(1, fixed(0x80), null)).toBeCloseTo(300_000, -3);
  });

  it('honours a later Retry-After, capped at 24 h', () => {
    expect(nextRetryDelay(0, fixed(0), 60_000)).toBe(60_000);
    expect(nextRetryDelay(0, fixed(0), 1000)).toBe(4250);
    expect(nextRetryDelay(0, fixed(0), 10 * 86_400_000)).toBe(86_400_000);
  });

  it('retries network errors, timeouts, 408, 429 and 5xx; 410 is gone; 3xx and other 4xx fail', () => {
    expect([null, 408, 429, 500, 503].map(classifyResponse)).toEqual(Array(5).fill('retry'));
    expect([200, 204, 299].map(classifyResponse)).toEqual(Array(3).fill('success'));
    expect(classifyResponse(410)).toBe('gone');
    expect([301, 302, 307, 400, 401, 404, 422].map(classifyResponse)).toEqual(Array(7).fill('fail'));
  });
});
