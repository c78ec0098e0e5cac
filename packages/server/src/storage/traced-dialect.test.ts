/**
 * The traced dialect on both databases, stacked on the outage translation as the store opens it:
 * one span per statement and per transaction step, connections handed back to the pool (one
 * connection here, so a connection kept would hang the next statement), failures recorded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './each-dialect.js';
import { openDatabase, type DatabaseHandle } from './open-database.js';
import { testDatabaseUrl } from './testing.js';

describeEachDialect('traced dialect', (dialect) => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let handle: DatabaseHandle;
  let scratch: string | undefined;

  beforeAll(async () => {
    const tracer = provider.getTracer('test');
    if (dialect === 'sqlite') {
      scratch = await mkdtemp(join(tmpdir(), 'presence-traced-'));
      handle = await openDatabase({ sqlitePath: join(scratch, 'traced.sqlite'), tracer });
    } else {
      handle = await openDatabase({ databaseUrl: testDatabaseUrl(), sqlitePath: '', pgPoolSize: 1, tracer });
    }
  });
  afterAll(async () => {
    await handle?.db.destroy();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
    await provider.shutdown();
  });

  const spans = () =>
    exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      system: s.attributes['db.system.name'],
      failed: s.status.code === SpanStatusCode.ERROR,
    }));

  it('spans every statement and transaction step, and gives each connection back', async () => {
    exporter.reset();
    for (let i = 0; i < 3; i += 1) {
      await handle.db.transaction().execute(async (trx) => {
        await sql`select ${i} as n`.execute(trx);
      });
    }
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    // Savepoints through the driver: PostgreSQL's. SQLite's writer gate has none (its group
    // commit writes SAVEPOINT statements itself, spanned as statements).
    const savepoints = dialect === 'postgres' ? ['BEGIN', 'SAVEPOINT', 'ROLLBACK', 'RELEASE', 'COMMIT'] : [];
    if (dialect === 'postgres') {
      const trx = await handle.db.startTransaction().execute();
      const inSavepoint = await trx.savepoint('a').execute();
      await inSavepoint.rollbackToSavepoint('a').execute();
      await inSavepoint.releaseSavepoint('a').execute();
      await trx.commit().execute();
    }
    await sql`select 2`.execute(handle.db);
    const system = dialect === 'sqlite' ? 'sqlite' : 'postgresql';
    const inTransaction = ['BEGIN', 'SELECT', 'COMMIT'];
    expect(spans()).toEqual(
      [
        ...inTransaction,
        ...inTransaction,
        ...inTransaction,
        'BEGIN',
        'SELECT',
        'ROLLBACK',
        ...savepoints,
        'SELECT',
      ].map((name) => ({ name, system, failed: false })),
    );
  });

  it('records a failed statement on its span and still gives the connection back', async () => {
    exporter.reset();
    await expect(sql`select * from no_such_table`.execute(handle.db)).rejects.toThrow();
    await sql`select 3`.execute(handle.db);
    expect(spans()).toEqual([
      { name: 'SELECT', system: dialect === 'sqlite' ? 'sqlite' : 'postgresql', failed: true },
      { name: 'SELECT', system: dialect === 'sqlite' ? 'sqlite' : 'postgresql', failed: false },
    ]);
  });
});
