/**
 * SQLite 0004: billing. Usage rollups (per tenant, meter and UTC hour/day/month, kept in the
 * usage event's transaction; backfilled here from the events already stored), the monthly
 * challenge quota counters, plan assignments, finalized invoices (immutable but for their
 * status, enforced by triggers) and the per-tenant invoice number counter. Same shape as the
 * PostgreSQL migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const MONTH_START = `CAST(strftime('%s', occurred_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000`;

const STATEMENTS = [
  `CREATE TABLE usage_rollups (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    granularity TEXT NOT NULL CHECK (granularity IN ('hour', 'day', 'month')),
    bucket_start INTEGER NOT NULL,
    meter TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity >= 0),
    sealed INTEGER NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1)),
    CONSTRAINT usage_rollups_pkey PRIMARY KEY (tenant_id, granularity, bucket_start, meter)
  ) STRICT, WITHOUT ROWID`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'hour', (occurred_at / 3600000) * 3600000, meter, sum(quantity)
    FROM usage_events GROUP BY 1, 3, 4`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'day', (occurred_at / 86400000) * 86400000, meter, sum(quantity)
    FROM usage_events GROUP BY 1, 3, 4`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'month', ${MONTH_START}, meter, sum(quantity) FROM usage_events GROUP BY 1, 3, 4`,
  `CREATE TABLE quota_counters (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    period_start INTEGER NOT NULL,
    used INTEGER NOT NULL CHECK (used >= 0),
    threshold_80_at INTEGER,
    threshold_100_at INTEGER,
    CONSTRAINT quota_counters_pkey PRIMARY KEY (tenant_id, period_start)
  ) STRICT, WITHOUT ROWID`,
  `INSERT INTO quota_counters (tenant_id, period_start, used)
    SELECT tenant_id, ${MONTH_START}, sum(quantity) FROM usage_events
    WHERE meter = 'challenges.created' GROUP BY 1, 2`,
  `CREATE TABLE billing_plans (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    effective_from INTEGER NOT NULL,
    plan TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT billing_plans_pkey PRIMARY KEY (tenant_id, effective_from)
  ) STRICT`,
  `CREATE TABLE invoices (
    id TEXT NOT NULL CONSTRAINT invoices_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    number TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'paid', 'void')),
    period_start INTEGER NOT NULL,
    period_end INTEGER NOT NULL,
    currency TEXT NOT NULL,
    currency_exponent INTEGER NOT NULL,
    plan TEXT NOT NULL,
    lines TEXT NOT NULL,
    subtotal_minor INTEGER NOT NULL CHECK (subtotal_minor >= 0),
    total_minor INTEGER NOT NULL CHECK (total_minor >= 0),
    finalized_at INTEGER NOT NULL,
    paid_at INTEGER,
    voided_at INTEGER,
    note TEXT,
    CONSTRAINT invoices_tenant_id_period_start_key UNIQUE (tenant_id, period_start),
    CONSTRAINT invoices_tenant_id_sequence_key UNIQUE (tenant_id, sequence)
  ) STRICT`,
  `CREATE TRIGGER invoices_immutable BEFORE UPDATE OF id, tenant_id, sequence, number, period_start,
    period_end, currency, currency_exponent, plan, lines, subtotal_minor, total_minor, finalized_at
    ON invoices
    BEGIN SELECT RAISE(ABORT, 'a finalized invoice is immutable: only its status changes'); END`,
  `CREATE TRIGGER invoices_never_deleted BEFORE DELETE ON invoices
    BEGIN SELECT RAISE(ABORT, 'invoices are never deleted'); END`,
  `CREATE TABLE invoice_counters (
    tenant_id TEXT NOT NULL CONSTRAINT invoice_counters_pkey PRIMARY KEY REFERENCES tenants (id),
    last_sequence INTEGER NOT NULL CHECK (last_sequence >= 1)
  ) STRICT`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
