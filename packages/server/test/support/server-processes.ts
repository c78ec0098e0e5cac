/**
 * `useServerProcesses(dialect, options)`: the preamble of every multi-process suite. Before the
 * suite's tests: a data directory and master key, a fresh PostgreSQL database on postgres, a tenant
 * made with the built CLI, and `processes` running servers. After them: every server still
 * running stopped, the database dropped, the directory removed. Call it at the top of a `describe`
 * body; the built service is needed (`serviceBuilt`), and `processDialects` says on which databases
 * it can run.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startedForSuite } from '../../src/storage/each-dialect.js';
import type { Dialect } from '../../src/storage/open-database.js';
import { pgAvailable } from '../../src/storage/testing.js';
import {
  createTenantWithCli,
  createTestDatabase,
  serviceBuilt,
  startServerProcess,
  type ServerProcess,
} from './server-process.js';

/**
 * The databases a suite of built server processes (`suite`, named when it is skipped) runs on:
 * SQLite when the service is built, PostgreSQL when it is built and the test server answers.
 */
export async function processDialects(suite: string): Promise<{ name: Dialect; enabled: boolean }[]> {
  const built = serviceBuilt(suite);
  const pgUp = built && (await pgAvailable());
  return [
    { name: 'postgres', enabled: pgUp },
    { name: 'sqlite', enabled: built },
  ];
}

export interface ServerProcesses {
  /** What every process of the group starts with (data directory, master key, DATABASE_URL). */
  env: Record<string, string>;
  tenantId: string;
  /** A full-scope key of the group's tenant. */
  apiKey: string;
  /** Every process started so far, in order. */
  servers: ServerProcess[];
  /** Starts one more process on the group's database (`extra` added to its environment). */
  start(extra?: Record<string, string>): Promise<ServerProcess>;
  /** `method path` on `server` with the group's key, a JSON body if given; the status and JSON answer. */
  request(server: ServerProcess, method: string, path: string, body?: unknown): Promise<Answer>;
}

export interface Answer {
  status: number;
  json: any;
}

export function useServerProcesses(
  dialect: Dialect,
  options: { name: string; env?: Record<string, string>; processes?: number },
): ServerProcesses {
  let cleanup = async (): Promise<void> => {};
  return startedForSuite(
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), `presence-${options.name}-`));
      const env: Record<string, string> = {
        PRESENCE_DATA_DIR: dataDir,
        PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
        ...options.env,
      };
      let drop = async (): Promise<void> => {};
      cleanup = async () => {
        await drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
      if (dialect === 'postgres') {
        const db = await createTestDatabase(`presence_${options.name}`);
        env['DATABASE_URL'] = db.url;
        drop = db.drop;
      }
      const servers: ServerProcess[] = [];
      const start = async (extra: Record<string, string> = {}) => {
        const server = await startServerProcess({ ...env, ...extra });
        servers.push(server);
        return server;
      };
      const tenant = createTenantWithCli(options.name, env);
      const request = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${tenant.apiKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: (await res.json()) as any };
      };
      await Promise.all(Array.from({ length: options.processes ?? 0 }, () => start()));
      return { env, ...tenant, servers, start, request };
    },
    async (group) => {
      const running = group.servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
      await Promise.all(running.map((s) => s.stop()));
      await cleanup();
    },
  );
}
