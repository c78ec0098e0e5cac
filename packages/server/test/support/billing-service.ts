/**
 * A full service for the billing suites, like test-service.ts but on a manual clock (so usage
 * lands in known hours, days and months) with the operator API on and tenants on chosen plans.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan, Scope } from '@presence/contract';
import SqliteDatabase from '../../src/storage/sqlite-driver.js';
import pg from 'pg';
import { composeWith, depsFromStore, type Composed } from '../../src/compose.js';
import { loadConfig } from '../../src/config/load-config.js';
import { inProcessServiceEnv } from '../../src/config/in-process-env.js';
import { OWNER_SCOPES } from '../../src/domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../../src/domain/api-keys/create-api-key.js';
import { DEFAULT_BILLING_SETTINGS } from '../../src/domain/billing/billing-settings.js';
import { setPlan } from '../../src/domain/billing/set-plan.js';
import type { Deps } from '../../src/domain/deps.js';
import type { Clock } from '../../src/domain/ports.js';
import { createTenant } from '../../src/domain/tenants/create-tenant.js';
import type { Dialect } from '../../src/storage/open-database.js';
import { openTestStore, testDatabaseUrl, type TestStore } from '../../src/storage/testing.js';
import { startedForSuite } from './each-dialect.js';
import { SoftAuthenticator } from './soft-authenticator.js';

export const RP_ID = 'app.example';
export const ORIGIN = 'https://app.example';
export const ADMIN_TOKEN = `admin-${'t'.repeat(40)}`;

/** Time stands still until the test moves it. */
export class ManualClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A plan with only a monthly challenge quota (no priced meters). */
export function quotaPlan(quota: number): Plan {
  return {
    name: `quota-${quota}`,
    currency: 'EUR',
    currencyExponent: 2,
    monthlyChallengeQuota: quota,
    meters: {},
  };
}

export interface Response {
  status: number;
  json: any;
  body: string;
  headers: Record<string, unknown>;
}

export interface BillingService {
  composed: Composed;
  deps: Deps;
  testStore: TestStore;
  clock: ManualClock;
  request(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, key?: string): Promise<Response>;
  admin(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, token?: string): Promise<Response>;
  newTenant(plan?: Plan): Promise<{ tenantId: string; apiKey: string }>;
  keyWith(tenantId: string, scopes: Scope[]): Promise<string>;
  enroll(apiKey: string, subject: string): Promise<SoftAuthenticator>;
  close(): Promise<void>;
}

export async function startBillingService(
  dialect: Dialect,
  options: { start: number; pgPoolSize?: number },
): Promise<BillingService> {
  const testStore = await openTestStore(dialect, { pgPoolSize: options.pgPoolSize ?? 5 });
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-billing-'));
  const config = loadConfig(inProcessServiceEnv(dataDir));
  const clock = new ManualClock(options.start);
  const billing = {
    ...DEFAULT_BILLING_SETTINGS,
    operatorTokenSha256: createHash('sha256').update(ADMIN_TOKEN).digest(),
  };
  const deps = await depsFromStore(testStore.store, config.masterKey, clock, {}, billing);
  const composed = await composeWith(deps, config, false);
  const inject = async (method: string, url: string, body: unknown, authorization: string) => {
    const res = await composed.app.inject({
      method: method as 'GET',
      url,
      headers: authorization === '' ? {} : { authorization },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    const json = res.headers['content-type']?.toString().includes('json') ? res.json() : undefined;
    return { status: res.statusCode, json, body: res.body, headers: res.headers };
  };
  const service: BillingService = {
    composed,
    deps,
    testStore,
    clock,
    request: (method, url, body, key = '') => inject(method, url, body, key === '' ? '' : `Bearer ${key}`),
    admin: (method, url, body, token = ADMIN_TOKEN) => inject(method, url, body, `Bearer ${token}`),
    async newTenant(plan) {
      const t = await createTenant(deps, { name: 'Acme <Payments> & Co', rpId: RP_ID, origins: [ORIGIN] });
      if (plan) await setPlan(deps, { tenantId: t.tenant.id, plan });
      return { tenantId: t.tenant.id, apiKey: t.apiKey };
    },
    async keyWith(tenantId, scopes) {
      return (await createApiKey(deps, tenantId, { name: 'scoped', scopes }, OWNER_SCOPES)).secret;
    },
    async enroll(apiKey, subject) {
      const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
      const options = await service.request('POST', '/v1/presence/credentials/options', { subject }, apiKey);
      const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
      const created = await service.request(
        'POST',
        '/v1/presence/credentials',
        { registrationId: options.json.registrationId, credential },
        apiKey,
      );
      if (created.status !== 201) throw new Error(`enroll failed: ${created.body}`);
      return authenticator;
    },
    async close() {
      await composed.app.close();
      await testStore.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

/** Runs one SQL statement on the test database over a connection of its own (to probe constraints). */
export async function rawExec(testStore: TestStore, statement: string): Promise<void> {
  const { options } = testStore;
  if (options.pgSchema === undefined) {
    const db = new SqliteDatabase(options.sqlitePath);
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({
    connectionString: testDatabaseUrl(),
    options: `-c search_path=${options.pgSchema}`,
  });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A billing service started before the enclosing suite's tests and closed after them. */
export function useBillingService(
  dialect: Dialect,
  options: Parameters<typeof startBillingService>[1],
): BillingService {
  return startedForSuite(
    () => startBillingService(dialect, options),
    (s) => s.close(),
  );
}
