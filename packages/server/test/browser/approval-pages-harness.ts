/**
 * The hosted approval pages' browser tests: the real service on a fresh SQLite file or PostgreSQL
 * schema, listening on localhost with a clock the test can move forward, and an API key of the
 * development tenant for the caller's side (creating approvals and enrollment links).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeWith, depsFromStore, type Composed } from '../../src/compose.js';
import { loadConfig } from '../../src/config/load-config.js';
import { OWNER_SCOPES } from '../../src/domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../../src/domain/api-keys/create-api-key.js';
import type { Dialect } from '../../src/storage/open-database.js';
import { openTestStore } from '../../src/storage/testing.js';
import { TestClock } from '../support/test-service.js';
import { freePort } from './browser-harness.js';

export interface LinkPagesService {
  composed: Composed;
  origin: string;
  clock: TestClock;
  /** A JSON call to the API with the development tenant's key. */
  api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startLinkPagesService(dialect: Dialect): Promise<LinkPagesService> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'presence-link-pages-'));
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: 'true',
    PRESENCE_DEV_ORIGIN: origin,
    PRESENCE_PUBLIC_ORIGIN: origin,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
  });
  const clock = new TestClock();
  const testStore = await openTestStore(dialect);
  const deps = await depsFromStore(testStore.store, config.masterKey, clock);
  const composed = await composeWith(deps, config, false);
  await composed.app.listen({ host: '127.0.0.1', port });
  const tenantId = (await deps.store.tenants.list()).find((t) => t.name === 'development')!.id;
  const scopes = ['approvals:write', 'approvals:read', 'credentials:write'] as const;
  const key = (await createApiKey(deps, tenantId, { name: 'caller', scopes: [...scopes] }, OWNER_SCOPES))
    .secret;
  return {
    composed,
    origin,
    clock,
    async api(method, path, body) {
      const response = await fetch(origin + path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: await response.json() };
    },
    async close() {
      await composed.app.close();
      await deps.webhooks.close();
      await testStore.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
