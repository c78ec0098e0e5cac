/**
 * Opening, migrating and closing through the public entry points (openStore, migrateDatabase),
 * for both dialects.
 */
import { randomBytes } from 'node:crypto';
import { describeEachDialect } from './each-dialect.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from './sqlite-driver.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from './migrate-database.js';
import type { StoreOptions } from './open-database.js';
import { openStore } from './open-store.js';
import { TestRecords } from './test-records.js';
import { dropTestSchema, testDatabaseUrl } from './testing.js';

describeEachDialect(
  (dialect) => `store lifecycle (${dialect})`,
  (dialect) => {
    let scratch: string;
    const schema = `test_${randomBytes(8).toString('hex')}`;
    let options: StoreOptions;
    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'presence-lifecycle-'));
      const sqlitePath = join(scratch, 'nested', 'dir', 'presence.sqlite');
      options =
        dialect === 'sqlite'
          ? { sqlitePath }
          : { databaseUrl: testDatabaseUrl(), sqlitePath, pgSchema: schema };
    });
    afterAll(async () => {
      await rm(scratch, { recursive: true, force: true });
      if (dialect === 'postgres') await dropTestSchema(schema);
    });

    it('openStore does not migrate: a fresh database has no tables yet', async () => {
      const store = await openStore(options);
      await expect(store.ping()).resolves.toBeUndefined();
      await expect(store.tenants.list()).rejects.toThrow();
      await store.close();
    });

    // SQLite's guard between processes is BEGIN IMMEDIATE plus busy_timeout, which blocks the
    // waiting thread: two handles in one process would stall each other, so only PostgreSQL
    // races here. Sequential runs check idempotency on both.
    it.skipIf(dialect === 'sqlite')(
      'migrateDatabase: concurrent runs apply each migration once',
      async () => {
        const reports = await Promise.all([1, 2, 3].map(() => migrateDatabase(options)));
        expect(reports.flatMap((r) => r.applied)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.id));
      },
    );

    it('migrateDatabase: applies pending migrations, then nothing', async () => {
      const first = await migrateDatabase(options);
      const second = await migrateDatabase(options);
      expect([...first.applied, ...second.applied]).toEqual(
        dialect === 'sqlite' ? SQLITE_MIGRATIONS.map((m) => m.id) : [],
      );
    });

    it('a migrated store round-trips a record, and a reopened one still sees it', async () => {
      const tenant = new TestRecords().tenant();
      const store = await openStore(options);
      await store.tenants.insert(tenant);
      await store.close();
      const reopened = await openStore(options);
      expect(await reopened.tenants.get(tenant.id)).toEqual(tenant);
      await reopened.close();
    });

    it.skipIf(dialect === 'postgres')('SQLite: the file is in WAL mode', () => {
      const raw = new SqliteDatabase(options.sqlitePath, { readonly: true });
      try {
        expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        raw.close();
      }
    });

    it.skipIf(dialect === 'sqlite')(
      'PostgreSQL: BIGINT parsing is per pool; the global pg parser is unchanged',
      async () => {
        const store = await openStore(options);
        await store.ping();
        expect(pg.types.getTypeParser(20)('9007199254740993')).toBe('9007199254740993');
        await store.close();
      },
    );
  },
);

describe('openStore option checks', () => {
  it('rejects a databaseUrl that is not PostgreSQL', async () => {
    await expect(openStore({ databaseUrl: 'mysql://x', sqlitePath: 'unused' })).rejects.toThrow(
      /postgres:\/\//,
    );
  });

  it('rejects a pgSchema that is not a plain lowercase identifier', async () => {
    const options = { databaseUrl: testDatabaseUrl(), sqlitePath: 'unused', pgSchema: 'x"; drop' };
    await expect(openStore(options)).rejects.toThrow(/pgSchema/);
  });
});
