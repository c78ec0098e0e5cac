#!/usr/bin/env node
/**
 * Writes the sdist of packages/python (presence-guard) into
 * packages/server/dist/sdk/presence-guard.tar.gz, the file the service serves at
 * GET /sdk/presence-guard.tar.gz, in Node: `npm run build` (and the Docker image) needs no Python.
 *
 * The sdist is what setuptools' build_meta writes, less its egg-info: one top directory
 * `presence-guard-<version>/` with PKG-INFO (core metadata from pyproject.toml), pyproject.toml,
 * README.md and src/presence_guard/ (with py.typed), as a ustar archive, gzipped. `pip install` of
 * it builds the wheel with the stock setuptools backend named in pyproject.toml.
 */
import { Buffer } from 'node:buffer';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const python = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(python, '..', 'server', 'dist', 'sdk');
const pyproject = readFileSync(join(python, 'pyproject.toml'), 'utf8');

/** A `key = "value"` (or `key = [...]`, `key = { text = "..." }`) line of pyproject.toml's [project] table. */
function field(key) {
  const project = pyproject.slice(pyproject.indexOf('[project]')).split(/^\[(?!project\])/m)[0];
  const line = new RegExp(`^${key} = (.*)$`, 'm').exec(project)?.[1];
  if (line === undefined) throw new Error(`pyproject.toml has no [project] ${key}`);
  return line;
}
const quoted = (text) => [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
const [name] = quoted(field('name'));
const [version] = quoted(field('version'));
const readme = readFileSync(join(python, 'README.md'), 'utf8');
const pkgInfo = [
  'Metadata-Version: 2.1',
  `Name: ${name}`,
  `Version: ${version}`,
  `Summary: ${quoted(field('description'))[0]}`,
  `License: ${quoted(field('license'))[0]}`,
  ...quoted(field('classifiers')).map((c) => `Classifier: ${c}`),
  `Requires-Python: ${quoted(field('requires-python'))[0]}`,
  ...quoted(field('dependencies')).map((d) => `Requires-Dist: ${d}`),
  'Description-Content-Type: text/markdown',
  '',
  readme,
].join('\n');

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== '__pycache__' && !e.name.endsWith('.pyc') && !e.name.endsWith('.egg-info'))
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

/** One ustar member: a 512-byte header, then the data padded to 512 bytes. */
function member(path, data, mtime) {
  if (Buffer.byteLength(path) > 100) throw new Error(`sdist path too long for ustar: ${path}`);
  const header = Buffer.alloc(512);
  const octal = (value, offset, width) => header.write(value.toString(8).padStart(width - 1, '0'), offset);
  header.write(path, 0);
  octal(0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(data.length, 124, 12);
  octal(mtime, 136, 12);
  header.write('        ', 148); // the checksum counts its own field as spaces
  header.write('0', 156); // a regular file
  header.write('ustar\u000000', 257);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148);
  return Buffer.concat([header, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

const top = `${name}-${version}`;
const mtimeOf = (file) => Math.floor(statSync(file).mtimeMs / 1000);
const members = [
  member(`${top}/PKG-INFO`, Buffer.from(pkgInfo), mtimeOf(join(python, 'pyproject.toml'))),
  ...[join(python, 'README.md'), join(python, 'pyproject.toml'), ...filesUnder(join(python, 'src'))].map(
    (file) =>
      member(`${top}/${relative(python, file).split('\\').join('/')}`, readFileSync(file), mtimeOf(file)),
  ),
];
const archive = gzipSync(Buffer.concat([...members, Buffer.alloc(1024)]), { level: 9 });

// Written beside the target and renamed, so a server reading it during a build never sees half a file.
mkdirSync(target, { recursive: true });
const scratch = join(target, `.presence-guard-${process.pid}.tar.gz`);
writeFileSync(scratch, archive);
renameSync(scratch, join(target, 'presence-guard.tar.gz'));
process.stdout.write(`python: wrote the ${top} sdist into packages/server/dist/sdk/presence-guard.tar.gz\n`);
