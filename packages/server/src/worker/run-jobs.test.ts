import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from 'pino';
import { backoffDelay, runJobs, type Job } from './run-jobs.js';

function recordingLogger() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: unknown, msg: string) => lines.push({ level, msg });
  return { lines, logger: { error: at('error'), info: at('info'), warn: at('warn') } as unknown as Logger };
}

describe('backoffDelay', () => {
  const options = { baseMs: 500, maxMs: 30_000, random: () => 0.999 };
  it('doubles per failure up to the cap, jittered below the ceiling', () => {
    expect([1, 2, 3, 4, 7, 20].map((n) => backoffDelay(n, options))).toEqual([
      499, 999, 1998, 3996, 29_970, 29_970,
    ]);
    expect(backoffDelay(3, { ...options, random: () => 0 })).toBe(50);
  });
});

describe('runJobs', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('backs a failing job off and logs once when it fails and once when it recovers', async () => {
    let calls = 0;
    let failing = true;
    const job: Job = {
      name: 'flaky',
      intervalMs: 200,
      run: async () => {
        calls++;
        if (failing) throw new Error('database down');
        return false;
      },
    };
    const { lines, logger } = recordingLogger();
    const jobs = runJobs([job], logger, { baseMs: 100, maxMs: 1000, random: () => 0.5 });
    await vi.advanceTimersByTimeAsync(10_000);
    // Delays 50, 100, 200, 400, 500, 500…: far fewer runs than one per 200 ms interval (50).
    expect(calls).toBeLessThan(25);
    expect(calls).toBeGreaterThan(5);
    expect(lines).toEqual([{ level: 'error', msg: 'background job failing; backing off' }]);
    failing = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(lines.at(-1)).toEqual({ level: 'info', msg: 'background job recovered' });
    const after = calls;
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls - after).toBe(5); // back on its 200 ms interval
    expect(lines).toHaveLength(2);
    await jobs.stop();
  });
});
