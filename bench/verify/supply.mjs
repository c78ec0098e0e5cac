// Challenge supplies for bench/verify's extra phases (light load, several processes, several
// tenants). A lane is one enrolled authenticator of one tenant: { headers, subject, authenticator }.
// makeSupply issues `count` challenges over the lanes (untimed), signs every assertion up front, and
// returns a `next` for runLoad that never has two requests of one lane in flight, so every
// credential's signCounts arrive in order (the counter compare-and-set never retries).
import { randomBytes } from 'node:crypto';
import { runLoad } from './load.mjs';

export async function makeSupply({ origin, lanes, count, concurrency }) {
  const issued = lanes.map(() => []);
  const askedFor = [];
  let turn = 0;
  const result = await runLoad({
    origin,
    headers: lanes[0].headers,
    concurrency,
    warmupMs: 0,
    seconds: 300,
    maxCount: count,
    next: (w) => {
      if (turn >= count) return null;
      const lane = (askedFor[w] = turn++ % lanes.length);
      const actionHashHex = randomBytes(32).toString('hex');
      return {
        path: '/v1/presence/challenge',
        headers: lanes[lane].headers,
        body: `{"actionHashHex":"${actionHashHex}","subject":"${lanes[lane].subject}","ttlSeconds":600}`,
      };
    },
    check: (status, text, w) => {
      if (status !== 201) return false;
      const body = JSON.parse(text);
      issued[askedFor[w]].push({ challengeId: body.challengeId, challenge: body.publicKey.challenge });
      return true;
    },
  });
  if (result.errors > 0) throw new Error(`supply: ${result.errors} failed, first: ${result.firstError}`);
  const bodies = issued.map((list, lane) =>
    list.map(({ challengeId, challenge }) =>
      JSON.stringify({ challengeId, assertion: lanes[lane].authenticator.assert(challenge) }),
    ),
  );
  return { bodies, total: bodies.reduce((n, b) => n + b.length, 0) };
}

/** A runLoad `next` over a supply; one instance per phase (shared by every pool of the phase). */
export function verifyNext(lanes, { bodies }) {
  const cursor = bodies.map(() => 0);
  const busy = bodies.map(() => false);
  const holding = new Map();
  let roundRobin = 0;
  return (key) => {
    const held = holding.get(key);
    if (held !== undefined) busy[held] = false;
    holding.delete(key);
    for (let k = 0; k < bodies.length; k++) {
      const s = (roundRobin + k) % bodies.length;
      if (busy[s] || cursor[s] >= bodies[s].length) continue;
      roundRobin = s + 1;
      busy[s] = true;
      holding.set(key, s);
      return { path: '/v1/presence/verify', headers: lanes[s].headers, body: bodies[s][cursor[s]++] };
    }
    return null;
  };
}

/**
 * Verifications over several servers at once (one pool per origin, connections split evenly), the
 * phase's ops/s summed; latency over all requests. Bounded by time and by the supply.
 */
export async function verifyAcross({ origins, lanes, supply, concurrency, warmupMs, seconds }) {
  const next = verifyNext(lanes, supply);
  const per = Math.max(1, Math.floor(concurrency / origins.length));
  const runs = await Promise.all(
    origins.map((origin, i) =>
      runLoad({
        origin,
        headers: lanes[0].headers,
        concurrency: per,
        warmupMs,
        seconds,
        maxCount: supply.total,
        next: (w) => next(`${i}:${w}`),
        check: (status, text) => status === 200 && JSON.parse(text).decision === 'PRESENCE_VERIFIED',
      }),
    ),
  );
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  if (errors > 0)
    throw new Error(`verify phase: ${errors} failed, first: ${runs.find((r) => r.firstError)?.firstError}`);
  const all = Float64Array.from(runs.flatMap((r) => Array.from(r.latencies))).sort();
  const pct = (p) =>
    all.length === 0 ? NaN : all[Math.min(all.length - 1, Math.floor((p / 100) * all.length))];
  const windowS = Math.max(...runs.map((r) => r.windowS));
  const count = runs.reduce((n, r) => n + r.count, 0);
  return {
    count,
    opsPerS: runs.reduce((n, r) => n + r.opsPerS, 0),
    // Each origin's share, in the order given.
    perOrigin: runs.map((r) => r.opsPerS),
    // Each origin's successful verifications, warm-up included.
    perOriginSucceeded: runs.map((r) => r.succeeded),
    windowS,
    p50: pct(50),
    p99: pct(99),
    endedEarly: runs.some((r) => r.endedEarly),
  };
}
