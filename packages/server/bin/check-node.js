// @ts-check
// Stops at once, with one line, on a Node.js this repository does not support: before anything
// loads a native addon that would crash on it. The supported range is `engines.node` of
// packages/server/package.json (every package.json of the repository names the same range; ADR 0019).
/* global URL, process */
import { readFileSync } from 'node:fs';

/** @param {string} version e.g. "20.19.0" @returns {number[]} */
const parts = (version) => version.replace(/^v/, '').split('.').map(Number);

/** `a >= b` for [major, minor, patch]. @param {number[]} a @param {number[]} b */
function atLeast(a, b) {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/**
 * Whether `version` satisfies `range`, for the forms engines uses here: `^x.y.z` and `>=x.y.z`
 * alternatives joined by `||`.
 * @param {string} version @param {string} range
 */
export function satisfies(version, range) {
  const v = parts(version);
  return range.split('||').some((alternative) => {
    const term = alternative.trim();
    if (term.startsWith('^')) {
      const min = parts(term.slice(1));
      return v[0] === min[0] && atLeast(v, min);
    }
    if (term.startsWith('>=')) return atLeast(v, parts(term.slice(2)));
    throw new Error(`check-node: unsupported engines term "${term}"`);
  });
}

/** The supported range, read from the server's package.json. */
export function supportedRange() {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return /** @type {string} */ (manifest.engines.node);
}

/** Exits the process with one line when this Node.js (or `version`) is outside the supported range. */
export function exitUnlessSupported(command = 'presence', version = process.versions.node) {
  const range = supportedRange();
  if (satisfies(version, range)) return;
  process.stderr.write(
    `${command}: Node.js ${version} is not supported; install Node.js ${range} (the active LTS, 26, is recommended).\n`,
  );
  process.exit(1);
}

// Run as a script (`node packages/server/bin/check-node.js`): check and exit.
if (import.meta.url === `file://${process.argv[1]}`) exitUnlessSupported('npm');
