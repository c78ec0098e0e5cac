import type { InvoiceLine, Plan } from '@presence/contract';
import type { Kysely } from 'kysely';
import type { FinalInvoiceStatus, InvoiceRecord, InvoiceRepo } from '../../domain/billing/ports.js';
import type { Database, InvoicesTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, parseJson } from './rows.js';

export function createInvoiceRepo(db: Kysely<Database>): InvoiceRepo {
  const select = () => db.selectFrom('invoices').selectAll();
  return {
    async insert(invoice) {
      await mapUniqueViolation(() => db.insertInto('invoices').values(toRow(invoice)).execute());
    },
    async get(id) {
      const row = await select().where('id', '=', id).executeTakeFirst();
      return row && toInvoice(row);
    },
    async getForTenant(tenantId, id) {
      const row = await select().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toInvoice(row);
    },
    async getByPeriod(tenantId, periodStart) {
      const row = await select()
        .where('tenant_id', '=', tenantId)
        .where('period_start', '=', periodStart)
        .executeTakeFirst();
      return row && toInvoice(row);
    },
    /** Keyset over the unique (tenant_id, period_start) index. */
    async list(tenantId, filter, limit) {
      let query = select().where('tenant_id', '=', tenantId);
      if (filter.before !== undefined) query = query.where('period_start', '<', filter.before);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      const rows = await query.orderBy('period_start', 'desc').limit(limit).execute();
      return rows.map(toInvoice);
    },
    async latestPeriodStart(tenantId) {
      const row = await db
        .selectFrom('invoices')
        .select('period_start')
        .where('tenant_id', '=', tenantId)
        .orderBy('period_start', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.period_start;
    },
    /** The counter row stays locked until commit; a rolled-back close gives its number back. */
    async takeSequence(tenantId) {
      const row = await db
        .insertInto('invoice_counters')
        .values({ tenant_id: tenantId, last_sequence: 1 })
        .onConflict((oc) =>
          oc
            .column('tenant_id')
            .doUpdateSet((eb) => ({ last_sequence: eb('invoice_counters.last_sequence', '+', 1) })),
        )
        .returning('last_sequence')
        .executeTakeFirstOrThrow();
      return row.last_sequence;
    },
    async settle(id, change) {
      const result = await db
        .updateTable('invoices')
        .set({
          status: change.status,
          ...(change.status === 'paid' ? { paid_at: change.at } : { voided_at: change.at }),
          note: change.note,
        })
        .where('id', '=', id)
        .where('status', '=', 'open')
        .executeTakeFirst();
      return changedAny(result);
    },
    async tenantsToClose(periodStart, periodEnd, limit) {
      const rows = await db
        .selectFrom('tenants')
        .select('id')
        .where('created_at', '<', periodEnd)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('invoices')
                .select('invoices.id')
                .whereRef('invoices.tenant_id', '=', 'tenants.id')
                .where('invoices.period_start', '=', periodStart),
            ),
          ),
        )
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
  };
}

function toRow(i: InvoiceRecord): InvoicesTable {
  return {
    id: i.id,
    tenant_id: i.tenantId,
    sequence: i.sequence,
    number: i.number,
    status: i.status,
    period_start: i.periodStart,
    period_end: i.periodEnd,
    currency: i.currency,
    currency_exponent: i.currencyExponent,
    plan: JSON.stringify(i.plan),
    lines: JSON.stringify(i.lines),
    subtotal_minor: i.subtotalMinor,
    total_minor: i.totalMinor,
    finalized_at: i.finalizedAt,
    paid_at: i.paidAt,
    voided_at: i.voidedAt,
    note: i.note,
  };
}

/** status is CHECKed by the schema. */
function toInvoice(row: InvoicesTable): InvoiceRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sequence: row.sequence,
    number: row.number,
    status: row.status as FinalInvoiceStatus,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    currency: row.currency,
    currencyExponent: row.currency_exponent,
    plan: parseJson<Plan>(row.plan),
    lines: parseJson<InvoiceLine[]>(row.lines),
    subtotalMinor: row.subtotal_minor,
    totalMinor: row.total_minor,
    finalizedAt: row.finalized_at,
    paidAt: row.paid_at,
    voidedAt: row.voided_at,
    note: row.note,
  };
}
