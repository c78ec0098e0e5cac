import {
  sql,
  type ExpressionBuilder,
  type Kysely,
  type QueryCreator,
  type ReferenceExpression,
} from 'kysely';
import type { LogCheckpointRecord, ReceiptLogStore } from '../../domain/receipt-log/ports.js';
import type { Dialect } from '../open-database.js';
import type { Database, ReceiptLogCheckpointsTable } from '../schema.js';
import { createReceiptLogSideRepo } from './receipt-log-side.js';

/**
 * The receipt log's tiles, checkpoints and cosignatures. Tiles are keyed (tenant, level, index),
 * so a proof reads a handful of rows by primary key whatever the size of the log.
 */
export function createReceiptLogTreeRepo(db: Kysely<Database>, dialect: Dialect): ReceiptLogStore {
  return {
    async treeSize(tenantId) {
      const row = await db
        .selectFrom('receipt_log_state')
        .select('tree_size')
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row ? Number(row.tree_size) : 0;
    },
    async claimDueLogs(limit, due, lease) {
      const rows =
        dialect === 'postgres'
          ? await db
              .with('due', (qc) => dueLogs(qc, limit, due, lease.now))
              // A log without a state row gets one (size 0), claimed. A concurrent claim of the
              // same row waits for the other's statement and then, finding the row claimed or
              // grown since `due` read it, passes it by.
              .with('claimed', (qc) =>
                qc
                  .insertInto('receipt_log_state')
                  .columns(['tenant_id', 'tree_size', 'updated_at', 'claimed_until'])
                  .expression((eb) =>
                    eb
                      .selectFrom('due')
                      .select([
                        'due.tenant_id',
                        'due.tree_size',
                        sql<number>`0`.as('updated_at'),
                        sql<number>`${lease.until}`.as('claimed_until'),
                      ]),
                  )
                  .onConflict((oc) =>
                    oc
                      .column('tenant_id')
                      .doUpdateSet((eb) => ({ claimed_until: eb.ref('excluded.claimed_until') }))
                      .where((eb) =>
                        eb.and([
                          eb('receipt_log_state.tree_size', '=', eb.ref('excluded.tree_size')),
                          unclaimed(eb, 'receipt_log_state.claimed_until', lease.now),
                        ]),
                      ),
                  )
                  .returning('tenant_id'),
              )
              .selectFrom('due')
              .innerJoin('claimed', 'claimed.tenant_id', 'due.tenant_id')
              .select(['due.tenant_id', 'due.value', 'due.tree_size'])
              .orderBy('due.updated_at')
              .orderBy('due.tenant_id')
              .execute()
          : await dueLogs(db, limit, due, lease.now).execute();
      return rows.map((r) => ({
        tenantId: r.tenant_id,
        lastSeq: Number(r.value),
        treeSize: Number(r.tree_size),
      }));
    },
    async receiptHashes(tenantId, after, limit) {
      const rows = await db
        .selectFrom('receipts')
        .select(['seq', 'hash_hex'])
        .where('tenant_id', '=', tenantId)
        .where('seq', '>', after)
        .where('seq', '<=', after + limit)
        .orderBy('seq')
        .execute();
      return rows.map((r) => ({ seq: Number(r.seq), hashHex: r.hash_hex }));
    },
    async leavesToIntegrate(tenantId, limit) {
      // The size is an uncorrelated subquery: evaluated once, in the same snapshot as the rows.
      const size = (eb: ExpressionBuilder<Database, 'receipts'>) =>
        eb.fn.coalesce(
          eb.selectFrom('receipt_log_state').select('tree_size').where('tenant_id', '=', tenantId),
          sql<number>`0`,
        );
      const rows = await db
        .selectFrom('receipts')
        .select((eb) => ['seq', 'hash_hex', size(eb).as('from_size')])
        .where('tenant_id', '=', tenantId)
        .where((eb) => eb('seq', '>', size(eb)))
        .where((eb) => eb('seq', '<=', eb(size(eb), '+', limit)))
        .orderBy('seq')
        .execute();
      if (rows.length === 0) return undefined;
      return {
        fromSize: Number(rows[0]!.from_size),
        leaves: rows.map((r) => ({ seq: Number(r.seq), hashHex: r.hash_hex })),
      };
    },
    async readTiles(tenantId, keys) {
      if (keys.length === 0) return [];
      const rows = await db
        .selectFrom('receipt_log_tiles')
        .select(['level', 'tile_index', 'hashes'])
        .where('tenant_id', '=', tenantId)
        .where((eb) =>
          eb.or(keys.map((k) => eb.and([eb('level', '=', k.level), eb('tile_index', '=', k.index)]))),
        )
        .execute();
      return rows.map((r) => ({
        level: Number(r.level),
        index: Number(r.tile_index),
        hashes: Buffer.from(r.hashes),
      }));
    },
    appendTiles: (...args) => (dialect === 'postgres' ? appendTilesInOneStatement : appendTiles)(db, ...args),
    async latestCheckpoint(tenantId) {
      const row = await db
        .selectFrom('receipt_log_checkpoints')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('tree_size', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toCheckpoint(row);
    },
    async checkpointAt(tenantId, treeSize) {
      const row = await db
        .selectFrom('receipt_log_checkpoints')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('tree_size', '=', treeSize)
        .executeTakeFirst();
      return row && toCheckpoint(row);
    },
    async witnessedCheckpoint(tenantId, atLeastSize, witnessKeys, min) {
      if (witnessKeys.length === 0) return undefined;
      const row = await db
        .selectFrom('receipt_log_checkpoints as c')
        .selectAll('c')
        .where('c.tenant_id', '=', tenantId)
        .where('c.tree_size', '>=', atLeastSize)
        .where(
          (eb) =>
            eb
              .selectFrom('receipt_log_cosignatures as w')
              .select((e) => e.fn.countAll<number>().as('n'))
              .whereRef('w.tenant_id', '=', 'c.tenant_id')
              .whereRef('w.tree_size', '=', 'c.tree_size')
              .where('w.witness_key', 'in', witnessKeys),
          '>=',
          min,
        )
        .orderBy('c.tree_size', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toCheckpoint(row);
    },
    ...createReceiptLogSideRepo(db),
    async oldestUnintegratedAt() {
      const row = await db
        .selectFrom('tenant_counters as tc')
        .leftJoin('receipt_log_state as s', 's.tenant_id', 'tc.tenant_id')
        .innerJoin('receipts as r', (join) =>
          join
            .onRef('r.tenant_id', '=', 'tc.tenant_id')
            .on((eb) => eb('r.seq', '=', sql<number>`coalesce(${eb.ref('s.tree_size')}, 0) + 1`)),
        )
        .select((eb) => eb.fn.min('r.issued_at').as('oldest'))
        .where('tc.name', '=', 'receipts')
        .executeTakeFirst();
      return row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
    },
  };
}

/** The port's `appendTiles` written against a given database (one per dialect below). */
type AppendTilesOn = (
  db: Kysely<Database>,
  ...args: Parameters<ReceiptLogStore['appendTiles']>
) => ReturnType<ReceiptLogStore['appendTiles']>;

/**
 * SQLite: call inside store.transaction, so that the compare-and-set, the tiles and the checkpoint
 * commit together.
 */
const appendTiles: AppendTilesOn = async (db, tenantId, fromSize, tiles, checkpoint) => {
  // The compare-and-set on the size, which also ends any lease on the log (claimDueLogs); a log's
  // first append creates its state row.
  const state = { tree_size: checkpoint.treeSize, updated_at: checkpoint.createdAt, claimed_until: null };
  const moved =
    fromSize === 0
      ? await db
          .insertInto('receipt_log_state')
          .values({ tenant_id: tenantId, ...state })
          .onConflict((oc) =>
            oc.column('tenant_id').doUpdateSet(state).where('receipt_log_state.tree_size', '=', 0),
          )
          .executeTakeFirst()
          .then((r) => Number(r.numInsertedOrUpdatedRows ?? 0))
      : await db
          .updateTable('receipt_log_state')
          .set(state)
          .where('tenant_id', '=', tenantId)
          .where('tree_size', '=', fromSize)
          .executeTakeFirst()
          .then((r) => Number(r.numUpdatedRows));
  if (moved !== 1) return false;
  if (tiles.length > 0) {
    await db
      .insertInto('receipt_log_tiles')
      .values(
        tiles.map((t) => ({ tenant_id: tenantId, level: t.level, tile_index: t.index, hashes: t.hashes })),
      )
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'level', 'tile_index'])
          .doUpdateSet((eb) => ({ hashes: eb.ref('excluded.hashes') })),
      )
      .execute();
  }
  await db
    .insertInto('receipt_log_checkpoints')
    .values({
      tenant_id: tenantId,
      tree_size: checkpoint.treeSize,
      root_hash: checkpoint.rootHash,
      note: checkpoint.note,
      created_at: checkpoint.createdAt,
    })
    .execute();
  return true;
};

/**
 * PostgreSQL: the same three writes as `appendTiles`, as one statement. The tiles and the
 * checkpoint are written only when the compare-and-set moved the size, and the state row's lock is
 * held from this statement to COMMIT, not across two more round trips: a capped process that is
 * throttled between its statements no longer keeps another process's integration waiting on it.
 */
const appendTilesInOneStatement: AppendTilesOn = async (db, tenantId, fromSize, tiles, checkpoint) => {
  const { treeSize, createdAt } = checkpoint;
  const compareAndSet =
    fromSize === 0
      ? sql`insert into receipt_log_state (tenant_id, tree_size, updated_at)
              values (${tenantId}, ${treeSize}, ${createdAt})
              on conflict (tenant_id) do update
                set tree_size = excluded.tree_size, updated_at = excluded.updated_at, claimed_until = null
                where receipt_log_state.tree_size = 0
              returning tenant_id`
      : sql`update receipt_log_state set tree_size = ${treeSize}, updated_at = ${createdAt}, claimed_until = null
              where tenant_id = ${tenantId} and tree_size = ${fromSize}
              returning tenant_id`;
  const { rows } = await sql<{ moved: number }>`
    with moved as (${compareAndSet}),
    tiles as (
      insert into receipt_log_tiles (tenant_id, level, tile_index, hashes)
      select ${tenantId}, t.level, t.tile_index, t.hashes
        from unnest(${tiles.map((t) => t.level)}::int[], ${tiles.map((t) => t.index)}::bigint[],
                    ${tiles.map((t) => t.hashes)}::bytea[]) as t(level, tile_index, hashes)
       where exists (select 1 from moved)
      on conflict (tenant_id, level, tile_index) do update set hashes = excluded.hashes
    ),
    checkpoint as (
      insert into receipt_log_checkpoints (tenant_id, tree_size, root_hash, note, created_at)
      select ${tenantId}, ${treeSize}, ${checkpoint.rootHash}, ${checkpoint.note}, ${createdAt}
       where exists (select 1 from moved)
    )
    select count(*)::int as moved from moved`.execute(db);
  return rows[0]?.moved === 1;
};

/**
 * The logs due for a checkpoint (ReceiptLogStore.claimDueLogs) and not claimed by another process
 * at `now`: those with no checkpoint first (updated_at 0), then the oldest checkpoints.
 */
function dueLogs(
  qc: QueryCreator<Database>,
  limit: number,
  due: { checkpointedBy: number; backlog: number },
  now: number,
) {
  return qc
    .selectFrom('tenant_counters as tc')
    .leftJoin('receipt_log_state as s', 's.tenant_id', 'tc.tenant_id')
    .select((eb) => [
      'tc.tenant_id',
      'tc.value',
      eb.fn.coalesce('s.tree_size', sql<number>`0`).as('tree_size'),
      eb.fn.coalesce('s.updated_at', sql<number>`0`).as('updated_at'),
    ])
    .where('tc.name', '=', 'receipts')
    .where((eb) => eb('tc.value', '>', eb.fn.coalesce('s.tree_size', sql<number>`0`)))
    .where((eb) =>
      eb.or([
        eb('s.updated_at', 'is', null),
        eb('s.updated_at', '<=', due.checkpointedBy),
        eb('tc.value', '>', sql<number>`${sql.ref('s.tree_size')} + ${due.backlog}`),
      ]),
    )
    .where((eb) => unclaimed(eb, 's.claimed_until', now))
    .orderBy((eb) => eb.fn.coalesce('s.updated_at', sql<number>`0`))
    .orderBy('tc.tenant_id')
    .limit(limit);
}

/** No lease on the log at `now`: none taken, or it ran out. */
function unclaimed<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  column: ReferenceExpression<DB, TB>,
  now: number,
) {
  return eb.or([eb(column, 'is', null), eb(column, '<=', now)]);
}

function toCheckpoint(row: ReceiptLogCheckpointsTable): LogCheckpointRecord {
  return {
    tenantId: row.tenant_id,
    treeSize: Number(row.tree_size),
    rootHash: Buffer.from(row.root_hash),
    note: row.note,
    createdAt: Number(row.created_at),
  };
}
