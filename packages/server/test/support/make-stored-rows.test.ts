/**
 * Writes one file of rows that this build stored, for test/stored-rows.test.ts: a tenant's billing
 * (a plan, usage over three months, a paid and a void invoice), its audit events and its approvals
 * (approved with a signed set, rejected, expired), all written through the HTTP API on SQLite at
 * fixed times, dumped table by table, with what the API answered when they were read back. Run
 * once, when a build changes a stored shape; never to "update" a committed file. Skipped unless
 * STORED_ROWS_FILE names the file to write:
 *   npm run build && STORED_ROWS_FILE=<date>-<what>.json npx vitest run packages/server/test/support/make-stored-rows.test.ts
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { ceremony, tokenOf } from './approvals.js';
import { ADMIN_TOKEN } from './billing-service.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import { FIXTURE_TENANT, TABLE_ORDER } from './stored-rows.js';
import { ORIGIN, RP_ID, startTestService } from './test-service.js';

/** What this writer stores: the rest of TABLE_ORDER is in 2026-11-27.json. */
const TABLES = TABLE_ORDER.slice(TABLE_ORDER.indexOf('billing_plans'));
const name = process.env['STORED_ROWS_FILE'];

it.skipIf(name === undefined)(
  'writes the rows this build stores, and what it served',
  async () => {
    if (!/^\d{4}-\d{2}-\d{2}[\w-]*\.json$/.test(name!))
      throw new Error('STORED_ROWS_FILE: <YYYY-MM-DD>-<what>.json');
    await writeStoredRows(name!);
  },
  120_000,
);

async function writeStoredRows(name: string) {
  const s = await startTestService('sqlite', {
    frozenAt: Date.parse('2026-09-01T00:00:00.000Z'),
    env: {
      PRESENCE_ADMIN_TOKEN: ADMIN_TOKEN,
      PRESENCE_PUBLIC_ORIGIN: ORIGIN,
      PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0',
    },
  });
  try {
    const at = (iso: string) => (s.clock.frozenAt = Date.parse(iso));
    at('2026-09-03T08:00:00.000Z');
    const { tenantId, apiKey } = await s.newTenant();
    const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, key = apiKey) => {
      const answer = await s.request(method, url, body, key);
      if (answer.status >= 300) throw new Error(`${method} ${url}: ${JSON.stringify(answer.json)}`);
      return answer.json;
    };
    const meters = {
      'challenges.created': { included: 2, tiers: [{ upTo: null, unitPriceMinor: '1.5' }] },
      'presence.verified': {
        tiers: [
          { upTo: 10, unitPriceMinor: '2' },
          { upTo: null, unitPriceMinor: '1' },
        ],
      },
    };
    await call(
      'PUT',
      `/admin/v1/tenants/${tenantId}/plan`,
      {
        plan: {
          name: 'Stored rows',
          currency: 'EUR',
          currencyExponent: 2,
          monthlyChallengeQuota: 1000,
          meters,
        },
        effectiveFrom: '2026-09',
      },
      ADMIN_TOKEN,
    );
    await call('POST', '/v1/keys', { name: 'auditor', scopes: ['audit:read', 'billing:read'] });
    const people: SoftAuthenticator[] = [];
    for (const subject of ['alice', 'bob']) {
      const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
      const options = await call('POST', '/v1/presence/credentials/options', { subject });
      const credential = authenticator.register({ challenge: options.publicKey.challenge });
      await call('POST', '/v1/presence/credentials', { registrationId: options.registrationId, credential });
      people.push(authenticator);
    }
    const approval = async (title: string, decisions: ('approve' | 'reject')[]) => {
      const created = await call('POST', '/v1/approvals', {
        action: { type: 'payout', amount: '250.00', currency: 'EUR', title },
        approvers: ['alice', 'bob'],
        required: 2,
        title,
      });
      for (const [i, intent] of decisions.entries()) {
        const decided = await ceremony(s, tokenOf(created.approvalUrl), intent, people[i]!);
        if (decided.json?.recorded !== true) throw new Error(`decide: ${JSON.stringify(decided.json)}`);
      }
      return created.approvalId as string;
    };

    at('2026-09-14T10:30:00.000Z');
    const approved = await approval('Pay supplier', ['approve', 'approve']);
    at('2026-10-05T09:00:00.000Z');
    await call('POST', '/admin/v1/billing/periods/2026-09/close', { tenantId }, ADMIN_TOKEN);
    const september = (await call('GET', '/v1/billing/invoices?status=open')).data[0].invoiceId as string;
    await call('POST', `/admin/v1/invoices/${september}/pay`, { note: 'SEPA 42' }, ADMIN_TOKEN);
    at('2026-10-20T16:45:00.000Z');
    const rejected = await approval('Refund', ['reject']);
    at('2026-11-02T09:00:00.000Z');
    await call('POST', '/admin/v1/billing/periods/2026-10/close', { tenantId }, ADMIN_TOKEN);
    const october = (await call('GET', '/v1/billing/invoices?status=open')).data[0].invoiceId as string;
    await call('POST', `/admin/v1/invoices/${october}/void`, { note: 'goodwill' }, ADMIN_TOKEN);
    at('2026-11-09T11:00:00.000Z');
    const expired = await approval('Close account', ['approve']);

    const readAt = at('2026-11-20T12:00:00.000Z');
    const urls: [string, string?][] = [
      ['/v1/billing/invoices'],
      [`/v1/billing/invoices/${september}`],
      [`/v1/billing/invoices/${october}`],
      ['/v1/billing/invoices/draft_2026-11'],
      ['/v1/billing/usage?from=2026-09-01T00:00:00Z&to=2026-12-01T00:00:00Z&granularity=month'],
      ['/v1/billing/usage?from=2026-09-14T00:00:00Z&to=2026-09-15T00:00:00Z&granularity=hour'],
      [`/admin/v1/tenants/${tenantId}/plan`, ADMIN_TOKEN],
      ['/v1/audit-events?to=2026-11-21T00:00:00Z'],
      [`/v1/approvals/${approved}`],
      [`/v1/approvals/${rejected}`],
      [`/v1/approvals/${expired}`],
      ['/v1/approvals'],
    ];
    const reads = [];
    for (const [url, key] of urls) {
      const answer = await s.request('GET', url, undefined, key ?? apiKey);
      reads.push({
        url,
        ...(key === undefined ? {} : { as: 'operator' }),
        status: answer.status,
        json: answer.json,
      });
    }
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      rows[table] = (await s.testStore.rows(table)).filter(
        (r) => (r as { tenant_id: string }).tenant_id === tenantId,
      );
    }
    const build = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const file = {
      writtenBy: `build ${build} (${new Date().toISOString().slice(0, 10)}), through its HTTP API on SQLite at fixed times (make-stored-rows.ts); the reads are what that build answered`,
      readAt,
      rows,
      reads,
    };
    const text = JSON.stringify(file, null, 2).split(tenantId).join(FIXTURE_TENANT);
    writeFileSync(new URL(`../fixtures/stored-rows/${name}`, import.meta.url), `${text}\n`);
    console.log(`wrote ${name}: ${TABLES.map((t) => `${t} ${rows[t]!.length}`).join(', ')}`);
  } finally {
    await s.close();
  }
}
