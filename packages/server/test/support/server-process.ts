/**
 * The built service (`dist/`) as real child processes, for multi-process tests, and the built CLI
 * (`runCli`, `cli`, `createTenantWithCli`) with its storage on either database (`cliStorage`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Dialect, StoreOptions } from '../../src/storage/open-database.js';
import { migrateDatabase } from '../../src/storage/migrate-database.js';
import { testDatabaseUrl } from '../../src/storage/testing.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Runs the built CLI (`presence …`) to its end: exit code, stdout and stderr. */
export function runCli(
  args: string[],
  env: Record<string, string>,
): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [`${DIST}cli/main.js`, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** `runCli` that must succeed: its stdout. */
export function cli(args: string[], env: Record<string, string>): string {
  const result = runCli(args, env);
  if (result.code !== 0) throw new Error(`presence ${args.join(' ')} failed: ${result.err}`);
  return result.out;
}

/**
 * `presence tenant create --json` for the relying party every process suite uses (`app.example`):
 * the new tenant's id and its first API key.
 */
export function createTenantWithCli(
  name: string,
  env: Record<string, string>,
): { tenantId: string; apiKey: string } {
  const args = [
    'tenant',
    'create',
    '--name',
    name,
    '--rp-id',
    'app.example',
    '--origin',
    'https://app.example',
  ];
  return JSON.parse(cli([...args, '--json'], env)) as { tenantId: string; apiKey: string };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [`${DIST}main.js`], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      PRESENCE_DEV_TENANT: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Generous: a loaded CI machine can take many seconds to start a process; ready is what counts.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`server did not become ready in 60 s: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * Whether the built service exists. In CI its absence is an error (npm test builds first);
 * elsewhere the caller's suite is skipped with a printed reason.
 */
export function serviceBuilt(suite: string): boolean {
  if (existsSync(`${DIST}main.js`)) return true;
  if (process.env['CI'] === 'true')
    throw new Error('packages/server/dist is missing: npm test builds before testing');
  console.warn(`${suite} skipped: run \`npm run build\` first (npm test does)`);
  return false;
}

/** A fresh PostgreSQL database for a group of server processes, dropped by `drop()`. */
export async function createTestDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * The storage a built-CLI suite runs on, migrated: SQLite in `dataDir`, or a fresh PostgreSQL
 * database whose address goes into `env` as DATABASE_URL. `options` open the same store in the
 * test process (to seed it); `drop()` removes the database.
 */
export async function cliStorage(
  dialect: Dialect,
  dataDir: string,
  env: Record<string, string>,
): Promise<{ options: StoreOptions; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const options = { sqlitePath: join(dataDir, 'presence.sqlite') };
    await migrateDatabase(options);
    return { options, drop: async () => undefined };
  }
  const database = await createTestDatabase('presence_cli');
  env['DATABASE_URL'] = database.url;
  const options = { databaseUrl: database.url, sqlitePath: '' };
  await migrateDatabase(options);
  return { options, drop: () => database.drop() };
}
