import type { Kysely } from 'kysely';
import type { ChallengeRecord } from '../../domain/presence/ports.js';
import type {
  LoggedReceipt,
  ReceiptFilter,
  ReceiptLogPosition,
  ReceiptLogRepo,
} from '../../domain/receipts/receipt-log-ports.js';
import type { Database } from '../schema.js';
import { toChallenge } from '../tables/challenges.js';
import { toReceipt } from '../tables/receipts.js';
import { currentCounterValue } from './tenant-counters.js';

/**
 * Keyset reads of a tenant's receipts by seq. Every query is bounded by (tenant_id, seq) or one
 * of the (tenant_id, <filter column>, seq) indexes of migration 0002, so a page never sorts.
 */
export function createReceiptLogRepo(db: Kysely<Database>): ReceiptLogRepo {
  return {
    async seqWindow(tenantId, range) {
      const row = await db
        .selectFrom('receipts')
        .select((eb) => [eb.fn.min('seq').as('low'), eb.fn.max('seq').as('high')])
        .where('tenant_id', '=', tenantId)
        .$if(range.from !== undefined, (qb) => qb.where('issued_at', '>=', range.from!))
        .$if(range.to !== undefined, (qb) => qb.where('issued_at', '<', range.to!))
        .executeTakeFirst();
      if (row?.low === null || row?.low === undefined || row.high === null) return undefined;
      return { low: Number(row.low), high: Number(row.high) };
    },
    lastSeq: (tenantId) => currentCounterValue(db, tenantId, 'receipts'),
    list: (tenantId, filter, position, limit) => listReceipts(db, tenantId, filter, position, limit),
    async listLeaves(tenantId, filter, position, limit) {
      const rows = await pageOf(db, tenantId, filter, position, limit).select(['seq', 'id']).execute();
      return rows.map((row) => ({ seq: Number(row.seq), receiptId: row.id }));
    },
  };
}

/** One keyset page of the tenant's receipts by seq, filtered; the caller picks the columns. */
function pageOf(
  db: Kysely<Database>,
  tenantId: string,
  filter: ReceiptFilter,
  position: ReceiptLogPosition,
  limit: number,
) {
  const asc = position.order === 'asc';
  const { after, stop } = position;
  return db
    .selectFrom('receipts')
    .where('tenant_id', '=', tenantId)
    .$if(after !== null, (qb) => qb.where('seq', asc ? '>' : '<', after!))
    .$if(stop !== null, (qb) => qb.where('seq', asc ? '<=' : '>=', stop!))
    .$if(filter.from !== undefined, (qb) => qb.where('issued_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('issued_at', '<', filter.to!))
    .$if(filter.subject !== undefined, (qb) => qb.where('subject', '=', filter.subject!))
    .$if(filter.actionHashHex !== undefined, (qb) => qb.where('action_hash_hex', '=', filter.actionHashHex!))
    .$if(filter.credentialRef !== undefined, (qb) => qb.where('credential_ref', '=', filter.credentialRef!))
    .orderBy('seq', asc ? 'asc' : 'desc')
    .limit(limit);
}

async function listReceipts(
  db: Kysely<Database>,
  tenantId: string,
  filter: ReceiptFilter,
  position: ReceiptLogPosition,
  limit: number,
): Promise<LoggedReceipt[]> {
  const rows = await pageOf(db, tenantId, filter, position, limit).selectAll().execute();
  if (rows.length === 0) return [];
  const challenges = await challengesById(
    db,
    tenantId,
    rows.map((r) => r.challenge_id),
  );
  return rows.map((row) => {
    const challenge = challenges.get(row.challenge_id);
    if (!challenge) throw new Error(`receipt ${row.id} has no challenge row`);
    return { seq: Number(row.seq), receipt: toReceipt(row), challenge };
  });
}

async function challengesById(
  db: Kysely<Database>,
  tenantId: string,
  ids: string[],
): Promise<Map<string, ChallengeRecord>> {
  const rows = await db
    .selectFrom('challenges')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, toChallenge(row)]));
}
