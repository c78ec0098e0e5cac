/**
 * The docs name only imports that exist: every `import { … } from '@presence/sdk…'` and every
 * "`name` from `@presence/sdk…`" in README.md, docs/ and the SDK README resolves to an export of
 * that entry point.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FILES = [
  'README.md',
  'packages/sdk/README.md',
  'examples/node-payout/README.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const ENTRIES: Record<string, () => Promise<Record<string, unknown>>> = {
  '@presence/sdk': () => import('@presence/sdk'),
  '@presence/sdk/node': () => import('@presence/sdk/node'),
  '@presence/sdk/testing': () => import('@presence/sdk/testing'),
};

it('names only SDK imports that exist', async () => {
  const named: { file: string; name: string; entry: string }[] = [];
  for (const file of FILES) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    for (const m of text.matchAll(/import\s*\{([^}]+)\}\s*from\s*'(@presence\/sdk[^']*)'/g))
      for (const part of m[1]!.split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!;
        if (name !== '') named.push({ file, name, entry: m[2]! });
      }
    for (const m of text.matchAll(/`(\w+)(?:\([^`]*\))?` (?:of|from) `(@presence\/sdk[^`]*)`/g))
      named.push({ file, name: m[1]!, entry: m[2]! });
  }
  expect(named.length).toBeGreaterThan(5);
  const missing: string[] = [];
  for (const { file, name, entry } of named) {
    const load = ENTRIES[entry];
    if (load === undefined) {
      missing.push(`${file}: ${entry} is no entry point`);
      continue;
    }
    const exports = await load();
    // Types have no run-time export: a capitalised name that is not exported must be a declared type.
    if (!(name in exports) && !/^[A-Z]/.test(name)) missing.push(`${file}: ${name} from ${entry}`);
  }
  expect(missing).toEqual([]);
});
