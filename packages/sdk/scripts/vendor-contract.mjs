#!/usr/bin/env node
/**
 * Copies the compiled contract (@presence/contract's dist: JavaScript and declarations) into
 * this package's dist/contract/, where the SDK reaches it as `#contract` (package.json
 * "imports"). The published tarball is then self-contained: the contract is never a separate
 * package to install. See docs/adr/0012-sdk-packaging.md.
 *
 * Only files whose content differs are written, so running it again while other processes read
 * the SDK (parallel test suites) never exposes a half-written file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = dirname(createRequire(import.meta.url).resolve('@presence/contract'));
const target = join(here, '..', 'dist', 'contract');

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.(js|d\.ts)$/.test(entry.name)) yield path;
  }
}

const wanted = new Set();
let written = 0;
for (const file of files(source)) {
  const out = join(target, relative(source, file));
  wanted.add(out);
  // The source maps point at the contract's sources, which the tarball does not carry.
  const text = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
  if (existsSync(out) && readFileSync(out, 'utf8') === text) continue;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  written++;
}
for (const stale of existsSync(target) ? [...files(target)] : []) {
  if (!wanted.has(stale)) rmSync(stale);
}
if (wanted.size === 0) throw new Error(`no compiled contract in ${source}: build it first (tsc -b)`);
process.stdout.write(
  `contract vendored into ${relative(process.cwd(), target) || '.'}: ${written} file(s) updated\n`,
);
