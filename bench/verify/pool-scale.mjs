// Pools the scale phase of several bench/verify runs: two server processes ÷ one, per round and
// over all rounds, for one tenant and for many (one tenant per connection), pooled separately for
// each --concurrency. One run's median of three rounds is too noisy to
// decide issue 10's two-process targets on a small machine (docs/performance-history.md, twenty-first pass).
// Run: node bench/verify/pool-scale.mjs run1.json run2.json …  (files written by run.mjs --json)
/* global process, console */
import { readFileSync } from 'node:fs';

const TARGETS = { oneTenant: 1.6, manyTenants: 1.8 };

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench/verify/pool-scale.mjs <run.json> [<run.json> …]');
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const f2 = (x) => x.toFixed(2);

/** Per --concurrency: the ratios of every round, for one tenant and for many. */
const pools = new Map();
for (const file of files) {
  const run = JSON.parse(readFileSync(file, 'utf8'));
  const scale = run.results?.find((r) => r.scale)?.scale;
  if (scale === undefined) {
    console.error(`${file}: no scale phase (run.mjs --db postgres --scale-rounds N --json …)`);
    process.exit(1);
  }
  if (!pools.has(run.concurrency)) pools.set(run.concurrency, { oneTenant: [], manyTenants: [] });
  const pooled = pools.get(run.concurrency);
  const cells = [];
  for (const name of ['oneTenant', 'manyTenants']) {
    const ratios = scale.rounds.map((r) => r[`${name}2`].opsPerS / r[`${name}1`].opsPerS);
    pooled[name].push(...ratios);
    cells.push(`${name} ${ratios.map(f2).join(', ')} (median ${f2(median(ratios))}×)`);
  }
  const options = [
    `${run.concurrency} connections`,
    scale.cpuQuota === null ? 'uncapped' : `capped at ${scale.cpuQuota} cores`,
    ...(scale.pinnedTo?.length ? [`pinned to CPUs ${scale.pinnedTo.join(',')}`] : []),
  ];
  console.log(`${file} (${options.join(', ')}): ${cells.join(' | ')}`);
}
for (const [concurrency, pooled] of pools)
  for (const name of ['oneTenant', 'manyTenants']) {
    const ratios = pooled[name];
    const met = ratios.filter((x) => x >= TARGETS[name]).length;
    console.log(
      `pooled, ${concurrency} connections, ${name}: median ${f2(median(ratios))}× over ${ratios.length} rounds ` +
        `(${f2(Math.min(...ratios))}–${f2(Math.max(...ratios))}×; ${met} of ${ratios.length} rounds ≥ ${TARGETS[name]}×)`,
    );
  }
