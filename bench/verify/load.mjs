// Closed-loop HTTP load generator for bench/verify: `concurrency` workers over one keep-alive
// undici Pool (one connection per worker, no pipelining), loopback only. Every phase is bounded by
// time AND count; the first `warmupMs` are run but not recorded.
/* global performance */
import { Pool } from 'undici';

/**
 * next(worker) → { path, body, headers? } | null   (null: this worker's supply is exhausted → the phase ends;
 *   headers, when given, replace the phase's for that request: several tenants in one phase)
 * check(status, text, worker) → true when the response is the expected success
 * Returns ops/s over the recorded window, latency percentiles (ms), error counts, and the
 * successful requests of the whole run (`succeeded`, warm-up included).
 */
export async function runLoad({ origin, headers, concurrency, warmupMs, seconds, maxCount, next, check }) {
  if (!/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin)) throw new Error(`loopback only: ${origin}`);
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies = new Float64Array(maxCount);
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const deadline = measureFrom + seconds * 1000;
  let stopAt = deadline;
  let stopped = false;
  let recorded = 0;
  let succeeded = 0; // warm-up included
  let issued = 0;
  let errors = 0;
  let firstError = null;
  const stop = () => {
    if (!stopped) {
      stopped = true;
      stopAt = Math.min(stopAt, performance.now());
    }
  };

  async function worker(w) {
    while (!stopped) {
      if (performance.now() >= deadline || recorded >= maxCount || issued >= maxCount * 2) return stop();
      const request = next(w);
      if (request === null) return stop();
      issued++;
      const start = performance.now();
      let ok = false;
      let detail = '';
      try {
        const res = await pool.request({
          method: 'POST',
          path: request.path,
          headers: request.headers ?? headers,
          body: request.body,
        });
        const text = await res.body.text();
        ok = check(res.statusCode, text, w);
        if (!ok) detail = `${res.statusCode} ${text.slice(0, 300)}`;
      } catch (error) {
        detail = String(error?.message ?? error);
      }
      const end = performance.now();
      if (!ok) {
        errors++;
        firstError ??= detail;
        if (errors > 50) return stop();
        continue;
      }
      succeeded++;
      if (start >= measureFrom && end <= stopAt && recorded < maxCount) latencies[recorded++] = end - start;
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  } finally {
    await pool.close().catch(() => pool.destroy());
  }
  const windowMs = Math.max(1, Math.min(stopAt, performance.now()) - measureFrom);
  const sorted = latencies.subarray(0, recorded).sort();
  return withLatencies(
    {
      count: recorded,
      succeeded,
      windowS: windowMs / 1000,
      opsPerS: recorded / (windowMs / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      errors,
      firstError,
      endedEarly: stopAt < deadline,
    },
    sorted,
  );
}

function percentile(sorted, p) {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The sorted latencies ride along, out of JSON output. */
function withLatencies(result, sorted) {
  return Object.defineProperty(result, 'latencies', { value: sorted, enumerable: false });
}

/** Two runs of the same load as one: ops/s over both windows, percentiles over both samples. */
export function combineRuns(a, b) {
  const merged = new Float64Array(a.latencies.length + b.latencies.length);
  merged.set(a.latencies);
  merged.set(b.latencies, a.latencies.length);
  merged.sort();
  const windowS = a.windowS + b.windowS;
  return withLatencies(
    {
      count: a.count + b.count,
      succeeded: a.succeeded + b.succeeded,
      windowS,
      opsPerS: (a.count + b.count) / windowS,
      p50: percentile(merged, 50),
      p99: percentile(merged, 99),
      errors: a.errors + b.errors,
      firstError: a.firstError ?? b.firstError,
      endedEarly: a.endedEarly || b.endedEarly,
      parts: [a, b],
    },
    merged,
  );
}
