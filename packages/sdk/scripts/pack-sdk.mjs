#!/usr/bin/env node
/**
 * Packs the built SDK (`npm pack`, without running its prepack build again: `npm run build` has
 * just built it) into packages/server/dist/sdk/presence-sdk.tgz, the file the service serves at
 * GET /sdk/presence-sdk.tgz. Offline: npm pack reads only this package's files.
 *
 * Written beside the target first and renamed, so a server or test reading the tarball while the
 * build runs never sees half a file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(sdk, '..', 'server', 'dist', 'sdk');
mkdirSync(target, { recursive: true });
const scratch = mkdtempSync(join(target, '.pack-'));
// npm run passes npm_* settings (workspace, prefix) that would make npm pack the wrong package.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);
try {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: sdk,
    env,
    encoding: 'utf8',
  });
  const [packed] = JSON.parse(out.slice(out.indexOf('[')));
  renameSync(join(scratch, packed.filename), join(target, 'presence-sdk.tgz'));
  process.stdout.write(
    `sdk: packed ${packed.name}@${packed.version} into packages/server/dist/sdk/presence-sdk.tgz\n`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
