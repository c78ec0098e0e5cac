/**
 * How tenants and their first console owner come to be without database access: the operator
 * API (`POST /admin/v1/tenants`) and `presence console invite … --json` (the built CLI), each on
 * both databases.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depsFromStore } from '../src/compose.js';
import { createTenant } from '../src/domain/tenants/create-tenant.js';
import { openStore } from '../src/storage/open-store.js';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { startBillingService, type BillingService } from './support/billing-service.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { cliStorage, runCli } from './support/server-process.js';

const postgresReady = await pgAvailable();

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(`operator tenant creation (${dialect})`, () => {
    let service: BillingService;
    beforeAll(async () => {
      service = await startBillingService(dialect, { start: Date.now() });
    });
    afterAll(async () => service?.close());

    it('creates a tenant with its first owner invite, and an API key only when asked', async () => {
      const body = { name: 'Acme', rpId: 'acme.example', allowedOrigins: ['https://acme.example'] };
      const plain = await service.admin('POST', '/admin/v1/tenants', body);
      expect(plain.status, plain.body).toBe(201);
      expect(plain.json.apiKey).toBeUndefined();
      expect(plain.json.ownerInviteUrl).toMatch(
        /^http:\/\/localhost:8080\/console\/invite\/[A-Za-z0-9_-]{43}$/,
      );
      expect(
        (await service.testStore.rows('api_keys')).filter((k) => k.tenant_id === plain.json.tenantId),
      ).toEqual([]);

      const withKey = await service.admin('POST', '/admin/v1/tenants', { ...body, apiKey: true });
      expect(withKey.json.apiKey).toMatch(/^presence_/);
      expect((await service.request('GET', '/v1/keys', undefined, withKey.json.apiKey)).status).toBe(200);

      const owner = new ConsoleClient(service.composed.app, await service.composed.consoleSettings());
      expect((await owner.join(plain.json.ownerInviteUrl, 'First owner')).status).toBe(200);
      const members = await service.deps.store.console.members.list(plain.json.tenantId);
      expect(members.map((m) => [m.displayName, m.role])).toEqual([['First owner', 'owner']]);
    });

    it('refuses callers without the operator token and bad bodies, creating nothing', async () => {
      const before = (await service.testStore.rows('tenants')).length;
      const body = { name: 'Nope', rpId: 'nope.example', allowedOrigins: ['https://nope.example'] };
      expect((await service.admin('POST', '/admin/v1/tenants', body, 'wrong-token-'.repeat(4))).status).toBe(
        401,
      );
      const bad = await service.admin('POST', '/admin/v1/tenants', { ...body, allowedOrigins: ['ftp://x'] });
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0].field).toContain('allowedOrigins');
      expect((await service.testStore.rows('tenants')).length).toBe(before);
    });
  });
}

describeEachDialect(
  (dialect) => `presence console invite (built CLI, ${dialect})`,
  (dialect) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-console-cli-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      PRESENCE_CONSOLE_ORIGIN: 'https://console.example',
    };
    let storage: { drop(): Promise<void> } | undefined;
    let tenantId = '';
    const presence = (...args: string[]) => runCli(args, env);
    beforeAll(async () => {
      const ready = await cliStorage(dialect, dataDir, env);
      storage = ready;
      const { options } = ready;
      const deps = await depsFromStore(
        await openStore(options),
        Buffer.from(env['PRESENCE_MASTER_KEY']!, 'base64url'),
      );
      tenantId = (
        await createTenant(deps, { name: 'Cli', rpId: 'cli.example', origins: ['https://cli.example'] })
      ).tenant.id;
      await deps.store.close();
    });
    afterAll(async () => {
      await storage?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('prints one JSON line with a single-use invite URL on the console origin', () => {
      const result = presence('console', 'invite', '--tenant', tenantId, '--role', 'admin', '--json');
      expect(result.code, result.err).toBe(0);
      const lines = result.out.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(Object.keys(JSON.parse(lines[0]!))).toEqual(['inviteUrl']);
      expect(JSON.parse(lines[0]!).inviteUrl).toMatch(
        /^https:\/\/console\.example\/console\/invite\/[A-Za-z0-9_-]{43}$/,
      );
    });

    it('refuses an unknown role or tenant', () => {
      expect(presence('console', 'invite', '--tenant', tenantId, '--role', 'root', '--json').code).not.toBe(
        0,
      );
      const unknown = presence(
        'console',
        'invite',
        '--tenant',
        'ten_00000000000000000000000000',
        '--role',
        'owner',
      );
      expect(unknown.code).not.toBe(0);
      expect(unknown.err).toContain('no tenant');
    });
  },
);
