// Summarises a V8 .cpuprofile (from `node --cpu-prof`), optionally only the samples inside a time
// window (µs on the monotonic clock, as run.mjs records its phases): self time by area and by
// function, and inclusive time of the service's own functions.
// Standalone: `node bench/verify/profile-summary.mjs <file.cpuprofile> [fromUs toUs]`.
/* global console, process */
import { readFileSync } from 'node:fs';

function areaOf(node) {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  if (url.startsWith('node:')) return 'node core (JS)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /packages\/([^/]+)\/dist\/(.+?)\/[^/]+\.js$/.exec(url);
  if (own) return `@presence/${own[1]} ${own[2]}`;
  return url.replace(/^file:\/\//, '');
}

function labelOf(node) {
  const { url, functionName, lineNumber } = node.callFrame;
  const file = url ? url.replace(/^.*\/(node_modules|packages)\//, '$1/').replace(/^file:\/\//, '') : '';
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
}

export function summariseProfile(path, { fromUs = -Infinity, toUs = Infinity, top = 15 } = {}) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const area = new Map();
  const inclusive = new Map();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < fromUs || t > toUs) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = nodes.get(profile.samples[i]);
    total += dt;
    const l = labelOf(leaf);
    self.set(l, (self.get(l) ?? 0) + dt);
    const a = areaOf(leaf);
    area.set(a, (area.get(a) ?? 0) + dt);
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = nodes.get(id);
      if (!/packages\/(server|sdk|contract)\/dist\//.test(n.callFrame.url)) continue;
      const label = labelOf(n);
      if (seen.has(label)) continue;
      seen.add(label);
      inclusive.set(label, (inclusive.get(label) ?? 0) + dt);
    }
  }
  const rank = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => ({ name: k, pct: (100 * v) / Math.max(1, total), ms: v / 1000 }));
  return { totalMs: total / 1000, byArea: rank(area), bySelf: rank(self), ownInclusive: rank(inclusive) };
}

export function printProfile(summary, log = console.log) {
  const line = (r) => `    ${r.pct.toFixed(1).padStart(5)} %  ${r.name}`;
  log(`  profile: ${summary.totalMs.toFixed(0)} ms of samples`);
  log('  self time by area:');
  summary.byArea.forEach((r) => log(line(r)));
  log('  self time by function:');
  summary.bySelf.forEach((r) => log(line(r)));
  log('  inclusive time, @presence functions:');
  summary.ownInclusive.forEach((r) => log(line(r)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, from, to] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.mjs <file.cpuprofile> [fromUs toUs]');
  printProfile(
    summariseProfile(file, {
      fromUs: from ? Number(from) : -Infinity,
      toUs: to ? Number(to) : Infinity,
      top: 25,
    }),
  );
}
