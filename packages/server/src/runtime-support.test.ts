/**
 * The Node.js lines Presence runs on (ADR 0019): one engines range in every package, a clear
 * one-line refusal outside it, and the SQLite driver each line loads.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { satisfies, supportedRange } from '../bin/check-node.js';
import SqliteDatabase, { SQLITE_DRIVER_PACKAGE } from './storage/sqlite-driver.js';

const root = new URL('../../../', import.meta.url).pathname;
const engines = (path: string) =>
  (JSON.parse(readFileSync(join(root, path), 'utf8')) as { engines: { node: string } }).engines.node;

describe('supported Node.js lines', () => {
  it('names one engines range in every package.json', () => {
    const range = engines('package.json');
    for (const path of ['packages/contract', 'packages/sdk', 'packages/server']) {
      expect(engines(`${path}/package.json`), path).toBe(range);
    }
    expect(supportedRange()).toBe(range);
  });

  it('accepts the maintained lines and refuses the others', () => {
    const range = supportedRange();
    const check = (v: string) => satisfies(v, range);
    expect(['20.19.0', '22.12.0', '24.0.0', '24.21.0', '26.12.1'].map(check)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['18.20.4', '20.18.3', '21.7.3', '22.11.0', '23.11.1'].map(check)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('stops the presence command at once with one line on a Node.js that is too old', () => {
    const bin = join(root, 'packages/server/bin/check-node.js');
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { exitUnlessSupported } from ${JSON.stringify(bin)}; exitUnlessSupported('presence', '18.20.4');`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^presence: Node\.js 18\.20\.4 is not supported; install Node\.js \^20\.19\.0/),
    ]);
    // On this Node.js (a supported one) the same check is silent.
    expect(execFileSync(process.execPath, [bin], { encoding: 'utf8' })).toBe('');
  });

  it('loads better-sqlite3 13 on Node.js 22 and later, 12 on Node.js 20', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(SQLITE_DRIVER_PACKAGE).toBe(major >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3');
    const database = new SqliteDatabase(':memory:');
    expect(database.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    database.close();
  });

  it('opens SQLite only through storage/sqlite-driver.js', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        if (name === 'node_modules' || name === 'dist') continue;
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (
          /\.(ts|js|mjs)$/.test(name) &&
          /^import \w+ from 'better-sqlite3';/m.test(readFileSync(path, 'utf8'))
        ) {
          offenders.push(path.slice(root.length));
        }
      }
    };
    for (const dir of ['packages', 'bench', 'examples']) walk(join(root, dir));
    expect(offenders).toEqual([]);
  });

  it('builds the container image on the newest LTS line', () => {
    const froms = readFileSync(join(root, 'Dockerfile'), 'utf8').match(/^FROM \S+/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^FROM node:26-/);
  });
});
