/**
 * PostgreSQL 0004: billing. Usage rollups (per tenant, meter and UTC hour/day/month, kept in the
 * usage event's transaction; backfilled here from the events already stored), the monthly
 * challenge quota counters, plan assignments, finalized invoices (immutable but for their
 * status, enforced by a trigger) and the per-tenant invoice number counter. Same shape as the
 * SQLite migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const MONTH_START = `(extract(epoch FROM date_trunc('month', to_timestamp(occurred_at / 1000.0) AT TIME ZONE 'UTC')) * 1000)::bigint`;
const IMMUTABLE_COLUMNS = [
  'id',
  'tenant_id',
  'sequence',
  'number',
  'period_start',
  'period_end',
  'currency',
  'currency_exponent',
  'plan',
  'lines',
  'subtotal_minor',
  'total_minor',
  'finalized_at',
];
const row = (alias: string) => `(${IMMUTABLE_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})`;

const STATEMENTS = [
  `CREATE TABLE usage_rollups (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    granularity TEXT NOT NULL CHECK (granularity IN ('hour', 'day', 'month')),
    bucket_start BIGINT NOT NULL,
    meter TEXT COLLATE "C" NOT NULL,
    quantity BIGINT NOT NULL CHECK (quantity >= 0),
    sealed SMALLINT NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1)),
    CONSTRAINT usage_rollups_pkey PRIMARY KEY (tenant_id, granularity, bucket_start, meter)
  )`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'hour', (occurred_at / 3600000) * 3600000, meter, sum(quantity)
    FROM usage_events GROUP BY 1, 3, 4`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'day', (occurred_at / 86400000) * 86400000, meter, sum(quantity)
    FROM usage_events GROUP BY 1, 3, 4`,
  `INSERT INTO usage_rollups (tenant_id, granularity, bucket_start, meter, quantity)
    SELECT tenant_id, 'month', ${MONTH_START}, meter, sum(quantity) FROM usage_events GROUP BY 1, 3, 4`,
  `CREATE TABLE quota_counters (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    period_start BIGINT NOT NULL,
    used BIGINT NOT NULL CHECK (used >= 0),
    threshold_80_at BIGINT,
    threshold_100_at BIGINT,
    CONSTRAINT quota_counters_pkey PRIMARY KEY (tenant_id, period_start)
  )`,
  `INSERT INTO quota_counters (tenant_id, period_start, used)
    SELECT tenant_id, ${MONTH_START}, sum(quantity) FROM usage_events
    WHERE meter = 'challenges.created' GROUP BY 1, 2`,
  `CREATE TABLE billing_plans (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    effective_from BIGINT NOT NULL,
    plan TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CONSTRAINT billing_plans_pkey PRIMARY KEY (tenant_id, effective_from)
  )`,
  `CREATE TABLE invoices (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT invoices_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    sequence BIGINT NOT NULL CHECK (sequence >= 1),
    number TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'paid', 'void')),
    period_start BIGINT NOT NULL,
    period_end BIGINT NOT NULL,
    currency TEXT NOT NULL,
    currency_exponent INTEGER NOT NULL,
    plan TEXT NOT NULL,
    lines TEXT NOT NULL,
    subtotal_minor BIGINT NOT NULL CHECK (subtotal_minor >= 0),
    total_minor BIGINT NOT NULL CHECK (total_minor >= 0),
    finalized_at BIGINT NOT NULL,
    paid_at BIGINT,
    voided_at BIGINT,
    note TEXT,
    CONSTRAINT invoices_tenant_id_period_start_key UNIQUE (tenant_id, period_start),
    CONSTRAINT invoices_tenant_id_sequence_key UNIQUE (tenant_id, sequence)
  )`,
  `CREATE FUNCTION invoices_guard() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      RAISE EXCEPTION 'invoices are never deleted';
    END IF;
    IF ${row('NEW')} IS DISTINCT FROM ${row('OLD')} THEN
      RAISE EXCEPTION 'a finalized invoice is immutable: only its status changes';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION invoices_guard()`,
  `CREATE TABLE invoice_counters (
    tenant_id TEXT COLLATE "C" NOT NULL CONSTRAINT invoice_counters_pkey PRIMARY KEY REFERENCES tenants (id),
    last_sequence BIGINT NOT NULL CHECK (last_sequence >= 1)
  )`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
