/**
 * The operator's `presence invoices …` and `presence plans …` commands, run as the built CLI
 * (`npx tsc -b packages/server` first) against each database, seeded in process with a tenant
 * that has existed for three months.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { depsFromStore } from '../src/compose.js';
import { periodContaining, previousPeriod } from '../src/domain/billing/billing-period.js';
import { setPlan } from '../src/domain/billing/set-plan.js';
import { createTenant } from '../src/domain/tenants/create-tenant.js';
import { recordUsage } from '../src/domain/usage/record-usage.js';
import { openStore } from '../src/storage/open-store.js';
import { ManualClock } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';
import { cliStorage, runCli } from './support/server-process.js';

const DAY = 86_400_000;

describeEachDialect(
  (dialect) => `presence invoices / plans (built CLI, ${dialect})`,
  (dialect) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-billing-cli-'));
    const masterKey = randomBytes(32);
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: masterKey.toString('base64url'),
    };
    let storage: { drop(): Promise<void> } | undefined;
    const current = periodContaining(Date.now());
    const previous = previousPeriod(current);
    const first = previousPeriod(previousPeriod(previous));
    let tenantId = '';

    const presence = (...args: string[]) => runCli(args, env);

    beforeAll(async () => {
      const ready = await cliStorage(dialect, dataDir, env);
      storage = ready;
      const { options } = ready;
      const clock = new ManualClock(first.start + DAY);
      const deps = await depsFromStore(await openStore(options), masterKey, clock);
      try {
        tenantId = (
          await createTenant(deps, { name: 'Cli Co', rpId: 'cli.example', origins: ['https://cli.example'] })
        ).tenant.id;
        const plan = {
          name: 'cli',
          currency: 'EUR',
          currencyExponent: 2,
          monthlyChallengeQuota: null,
          meters: { 'webhooks.delivered': { tiers: [{ upTo: null, unitPriceMinor: '2.5' }] } },
        };
        await setPlan(deps, { tenantId, plan });
        await deps.store.transaction((tx) =>
          recordUsage(deps, tx, tenantId, 'webhooks.delivered', 'cli-1', 101),
        );
      } finally {
        await deps.store.close();
      }
    });
    afterAll(async () => {
      await storage?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('refuses to close the current period', () => {
      const r = presence('invoices', 'close', '--period', current.label);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`${current.label} has not ended`);
    });

    it('closes every unclosed period up to the given one, in order, and only once', () => {
      const r = presence('invoices', 'close', '--period', previous.label, '--json');
      expect(r.code).toBe(0);
      const result = JSON.parse(r.out);
      const mine = result.invoices.filter((i: any) => i.tenantId === tenantId);
      expect(mine.map((i: any) => [i.number, i.created])).toEqual([
        ['INV-000001', true],
        ['INV-000002', true],
        ['INV-000003', true],
      ]);
      expect(mine[0]).toMatchObject({ period: first.label, totalMinor: 253 }); // 101 × 2.5 = 252.5 → 253
      const again = presence('invoices', 'close', '--period', previous.label);
      expect(again.out).toContain(`0 invoice(s) finalized for ${previous.label}`);
    });

    it('lists invoices, marks one paid, refuses to void it, and assigns plans', () => {
      const list = presence('invoices', 'list', '--tenant', tenantId, '--json');
      const invoices = JSON.parse(list.out);
      expect(invoices.map((i: any) => i.status)).toEqual(['draft', 'open', 'open', 'open']);
      const oldest = invoices.at(-1);
      const paid = presence('invoices', 'mark-paid', '--invoice', oldest.invoiceId, '--note', 'wire 7');
      expect(paid.out).toMatch(/INV-000001\s+paid\s+EUR 2\.53/);
      const voided = presence('invoices', 'void', '--invoice', oldest.invoiceId);
      expect(voided.code).toBe(1);
      expect(voided.err).toContain('is paid; only an open invoice can become void');
      const file = join(dataDir, 'plan.json');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'pro',
          currency: 'USD',
          currencyExponent: 2,
          monthlyChallengeQuota: 5000,
          meters: {},
        }),
      );
      expect(presence('plans', 'set', '--tenant', tenantId, '--file', file).out).toContain(
        `from ${current.label}`,
      );
      expect(JSON.parse(presence('plans', 'show', '--tenant', tenantId).out)).toMatchObject({
        source: 'tenant',
        plan: { name: 'pro' },
      });
      writeFileSync(file, JSON.stringify({ name: 'broken' }));
      expect(presence('plans', 'set', '--tenant', tenantId, '--file', file).err).toContain(
        'is not a valid plan',
      );
    });
  },
);
