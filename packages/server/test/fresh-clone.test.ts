/**
 * What a fresh clone needs: after `npm install` and a build, the workspace bins answer, and no
 * tracked file reaches outside the repository for data or documentation.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serviceBuilt } from './support/server-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(`${ROOT}${f}`));
}

describe('a fresh clone', () => {
  it.skipIf(!existsSync(`${ROOT}.git`))('has no file that points outside the repository', () => {
    // Built from parts so that this file does not match itself.
    const outside = ['..', 'shared', ''].join('/');
    const offenders = trackedFiles().filter((f) => {
      if (/\.(zip|png|ico|sqlite)$/.test(f)) return false;
      return readFileSync(`${ROOT}${f}`, 'utf8').includes(outside);
    });
    expect(offenders).toEqual([]);
  });

  it.skipIf(!serviceBuilt('bin checks'))('links the presence and presence-verify bins at install', () => {
    const help = execFileSync(`${BIN}presence`, ['help'], { encoding: 'utf8' });
    expect(help).toMatch(/^Usage:\n {2}presence serve/);
    const verify = execFileSync(`${BIN}presence-verify`, ['--help'], { encoding: 'utf8' });
    expect(verify).toMatch(/^Usage: presence-verify <pack\.zip>/);
  });
});
