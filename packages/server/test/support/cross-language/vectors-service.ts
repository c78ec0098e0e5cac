/**
 * The real service for the vector generator, outside vitest: a fresh SQLite file, the real domain
 * and Fastify app (driven with app.inject), one tenant with a full-scope key. (test-service.ts
 * is the same for suites, but it imports vitest, which cannot run outside a test.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeWith, depsFromStore, systemClock, type Composed } from '../../../src/compose.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { inProcessServiceEnv } from '../../../src/config/in-process-env.js';
import { createTenant } from '../../../src/domain/tenants/create-tenant.js';
import { openTestStore } from '../../../src/storage/testing.js';

export interface VectorsService {
  composed: Composed;
  tenantId: string;
  request(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    body?: unknown,
    key?: string,
  ): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startVectorsService(rpId: string, origin: string): Promise<VectorsService> {
  const testStore = await openTestStore('sqlite');
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-vectors-'));
  const config = loadConfig(inProcessServiceEnv(dataDir));
  const deps = await depsFromStore(testStore.store, config.masterKey, systemClock, {
    allowNets: [],
    timeoutMs: 10_000,
  });
  const composed = await composeWith(deps, config, false);
  const { tenant, apiKey } = await createTenant(deps, { name: 'vectors', rpId, origins: [origin] });
  return {
    composed,
    tenantId: tenant.id,
    async request(method, url, body, key = apiKey) {
      const res = await composed.app.inject({
        method,
        url,
        headers: key === '' ? {} : { authorization: `Bearer ${key}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: res.statusCode, json: res.body === '' ? undefined : res.json() };
    },
    async close() {
      await composed.app.close();
      await testStore.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
