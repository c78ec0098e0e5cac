/**
 * A real service for end-to-end tests: a fresh SQLite file or PostgreSQL schema, the real
 * domain, the real Fastify app (driven with app.inject), one tenant with a full-scope key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scope } from '@presence/contract';
import type { Logger } from 'pino';
import { composeWith, depsFromStore, type Composed } from '../../src/compose.js';
import { loadConfig } from '../../src/config/load-config.js';
import { inProcessServiceEnv } from '../../src/config/in-process-env.js';
import { OWNER_SCOPES } from '../../src/domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../../src/domain/api-keys/create-api-key.js';
import type { Clock } from '../../src/domain/ports.js';
import { createTenant } from '../../src/domain/tenants/create-tenant.js';
import type { Dialect } from '../../src/storage/open-database.js';
import { openTestStore, type TestStore } from '../../src/storage/testing.js';
import { startedForSuite } from './each-dialect.js';
import { SoftAuthenticator } from './soft-authenticator.js';

export const RP_ID = 'app.example';
export const ORIGIN = 'https://app.example';

/** Real time plus an offset the test can move forward, or an instant it holds still. */
export class TestClock implements Clock {
  offsetMs = 0;
  /** While set, the time stands still here (e.g. to read stored rows as their build did). */
  frozenAt: number | undefined;
  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

export interface TestService {
  composed: Composed;
  testStore: TestStore;
  clock: TestClock;
  tenantId: string;
  apiKey: string;
  /** The master key its secrets are sealed with. */
  masterKey: Buffer;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    key?: string,
  ): Promise<{ status: number; json: any; headers: Record<string, unknown> }>;
  newTenant(): Promise<{ tenantId: string; apiKey: string }>;
  keyWith(scopes: Scope[]): Promise<string>;
  enroll(
    subject: string,
    authenticator?: SoftAuthenticator,
  ): Promise<{ authenticator: SoftAuthenticator; credential: any }>;
  /** Serves the app over HTTP on a free loopback port (for real clients: SDK, CLI, examples); its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestService(
  dialect: Dialect,
  options: {
    webhookAllowNets?: string[];
    webhookTimeoutMs?: number;
    logger?: Logger;
    /** Extra configuration (environment variable names), e.g. limits or the metrics token. */
    env?: Record<string, string>;
    /** Starts with the clock frozen at this instant (signing keys are made then), not real time. */
    frozenAt?: number;
  } = {},
): Promise<TestService> {
  const testStore = await openTestStore(dialect);
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-test-'));
  const config = loadConfig(
    inProcessServiceEnv(dataDir, {
      ...options.env,
    }),
  );
  const clock = new TestClock();
  clock.frozenAt = options.frozenAt;
  const deps = await depsFromStore(
    testStore.store,
    config.masterKey,
    clock,
    {
      allowNets: options.webhookAllowNets ?? [],
      timeoutMs: options.webhookTimeoutMs ?? 10_000,
    },
    config.billing,
  );
  const composed = await composeWith(deps, config, options.logger ?? false);
  const newTenant = async () => {
    const t = await createTenant(deps, { name: 'test', rpId: RP_ID, origins: [ORIGIN] });
    return { tenantId: t.tenant.id, apiKey: t.apiKey };
  };
  const first = await newTenant();
  const service: TestService = {
    composed,
    testStore,
    clock,
    masterKey: config.masterKey,
    ...first,
    async request(method, url, body, key = first.apiKey) {
      const res = await composed.app.inject({
        method,
        url,
        headers: key === '' ? {} : { authorization: `Bearer ${key}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: res.statusCode, json: res.body === '' ? undefined : res.json(), headers: res.headers };
    },
    newTenant,
    async keyWith(scopes) {
      return (await createApiKey(deps, first.tenantId, { name: 'scoped', scopes }, OWNER_SCOPES)).secret;
    },
    async enroll(subject, authenticator = new SoftAuthenticator(RP_ID, ORIGIN)) {
      const options = await service.request('POST', '/v1/presence/credentials/options', { subject });
      const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
      const created = await service.request('POST', '/v1/presence/credentials', {
        registrationId: options.json.registrationId,
        credential,
      });
      if (created.status !== 201) throw new Error(`enroll failed: ${JSON.stringify(created.json)}`);
      return { authenticator, credential: created.json.credential };
    },
    async listen() {
      await composed.app.listen({ port: 0, host: '127.0.0.1' });
      return `http://127.0.0.1:${(composed.app.server.address() as AddressInfo).port}`;
    },
    async close() {
      await composed.app.close();
      await testStore.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

/** A test service started before the enclosing suite's tests and closed after them. */
export function useTestService(
  dialect: Dialect,
  options: Parameters<typeof startTestService>[1] = {},
  stop: (s: TestService) => Promise<void> = (s) => s.close(),
): TestService {
  return startedForSuite(() => startTestService(dialect, options), stop);
}
