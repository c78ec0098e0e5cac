/**
 * Everything stored is read forever: rows that older builds wrote (test/fixtures/stored-rows/),
 * inserted into a fresh database of each dialect, are served by today's build through the API with
 * at least what the older build served, read at the time it read them (the clock stands still
 * there, so live drafts and expiries come out the same). Adding a required field to a stored shape
 * (a policy rule, a plan's or an invoice's field, an audit event's, an approval's) without a default
 * for the rows stored before it fails here, not in production.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ADMIN_TOKEN } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';
import { FIXTURE_TENANT, TABLE_ORDER, type StoredRows } from './support/stored-rows.js';
import { useTestService } from './support/test-service.js';

const FIXTURES = new URL('./fixtures/stored-rows/', import.meta.url);

const builds = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as StoredRows) }));

function forTenant<T>(value: T, tenantId: string): T {
  return JSON.parse(JSON.stringify(value).split(FIXTURE_TENANT).join(tenantId)) as T;
}

describeEachDialect('rows written by older builds', (dialect) => {
  const s = useTestService(dialect, { env: { PRESENCE_ADMIN_TOKEN: ADMIN_TOKEN } });

  it('has fixtures of every stored table it knows the order of', () => {
    expect(builds.length).toBeGreaterThan(0);
    for (const build of builds) {
      expect(Object.keys(build.rows).filter((t) => !(TABLE_ORDER as string[]).includes(t))).toEqual([]);
    }
  });

  for (const build of builds) {
    it(`serves what ${build.file} stored, as its build served it`, async () => {
      const { tenantId, apiKey } = await s.newTenant();
      for (const table of TABLE_ORDER) {
        const rows = build.rows[table];
        if (rows !== undefined) await s.testStore.insert(table, forTenant(rows, tenantId) as never[]);
      }
      s.clock.frozenAt = build.readAt;
      try {
        for (const read of forTenant(build.reads, tenantId)) {
          const answer = await s.request(
            'GET',
            read.url,
            undefined,
            read.as === 'operator' ? ADMIN_TOKEN : apiKey,
          );
          expect({ url: read.url, status: answer.status }).toEqual({ url: read.url, status: read.status });
          expect(answer.json).toMatchObject(read.json as object);
        }
      } finally {
        s.clock.frozenAt = undefined;
      }
    });
  }
});
