/**
 * The CLI door of audit events, run as the built CLI (`npm run build` first) on each database:
 * `presence tenant create`, `keys create` and `console invite` are audit events of actor type
 * `cli`, and `presence tenant list` finds a lost tenant id.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../src/storage/open-store.js';
import type { StoreOptions } from '../src/storage/open-database.js';
import { describeEachDialect } from './support/each-dialect.js';
import { cli, cliStorage, createTenantWithCli } from './support/server-process.js';

describeEachDialect(
  (dialect) => `audit events and tenant list through the CLI (built CLI, ${dialect})`,
  (dialect) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-audit-cli-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      PRESENCE_DEV_TENANT: 'false',
    };
    let storage: { options: StoreOptions; drop(): Promise<void> } | undefined;

    beforeAll(async () => {
      storage = await cliStorage(dialect, dataDir, env);
    });
    afterAll(async () => {
      await storage?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('records tenant creation, key creation and invites with the CLI as the actor', async () => {
      const { tenantId } = createTenantWithCli('Audit Co', env);
      cli(
        ['keys', 'create', '--tenant', tenantId, '--name', 'batch', '--scope', 'receipts:read', '--json'],
        env,
      );
      cli(['console', 'invite', '--tenant', tenantId, '--role', 'auditor', '--json'], env);
      const store = await openStore(storage!.options);
      try {
        const events = await store.auditEvents.list(tenantId, { actorType: 'cli' }, { limit: 10 });
        expect(events.map((e) => e.action).sort()).toEqual([
          'api_key.created',
          'invite.created',
          'tenant.created',
        ]);
        for (const e of events) {
          expect(e.actor).toMatchObject({
            type: 'cli',
            id: 'cli',
            name: expect.stringMatching(/^presence CLI/),
          });
        }
        expect(events.find((e) => e.action === 'api_key.created')?.target).toMatchObject({ name: 'batch' });
      } finally {
        await store.close();
      }
    });

    it('lists every tenant, so a lost tenant id can be found', () => {
      const { tenantId } = createTenantWithCli('Lost & Found', env);
      const rows = JSON.parse(cli(['tenant', 'list', '--json'], env)) as { tenantId: string; name: string }[];
      expect(rows).toContainEqual(expect.objectContaining({ tenantId, name: 'Lost & Found' }));
      const text = cli(['tenant', 'list'], env);
      expect(text).toMatch(new RegExp(`^${tenantId}\\s+\\S+Z\\s+Lost & Found$`, 'm'));
    });
  },
);
