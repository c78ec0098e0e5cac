/**
 * SQLite 0003: webhook endpoints, deliveries and their attempts, and the fan-out marker on the
 * outbox. A delivery is one event for one endpoint (its id is the X-PRESENCE-Delivery-Id); while a
 * worker holds it, `lease_token` is set and `next_attempt_at` is the lease's end, so an expired
 * lease makes it due again. Same shape as the PostgreSQL migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `ALTER TABLE outbox_events ADD COLUMN fanned_out_at INTEGER`,
  `UPDATE outbox_events SET fanned_out_at = created_at`,
  `CREATE INDEX outbox_events_fan_out_idx ON outbox_events (created_at, id) WHERE fanned_out_at IS NULL`,
  `CREATE TABLE webhook_endpoints (
    id TEXT NOT NULL CONSTRAINT webhook_endpoints_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    url TEXT NOT NULL,
    description TEXT,
    events TEXT NOT NULL,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    disabled_reason TEXT,
    disabled_at INTEGER,
    secret_sealed TEXT NOT NULL,
    secret_created_at INTEGER NOT NULL,
    previous_secret_sealed TEXT,
    previous_secret_expires_at INTEGER,
    failing_since INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE INDEX webhook_endpoints_tenant_id_id_idx ON webhook_endpoints (tenant_id, id)`,
  `CREATE TABLE webhook_deliveries (
    id TEXT NOT NULL CONSTRAINT webhook_deliveries_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id TEXT NOT NULL REFERENCES outbox_events (id),
    event_type TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempt_count INTEGER NOT NULL CHECK (attempt_count >= 0),
    retry_count INTEGER NOT NULL CHECK (retry_count >= 0),
    next_attempt_at INTEGER,
    lease_token TEXT,
    leased_at INTEGER,
    last_status_code INTEGER,
    last_error TEXT,
    first_succeeded_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    completed_at INTEGER,
    CONSTRAINT webhook_deliveries_endpoint_id_event_id_key UNIQUE (endpoint_id, event_id)
  ) STRICT`,
  `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (endpoint_id) WHERE lease_token IS NOT NULL`,
  `CREATE INDEX webhook_deliveries_endpoint_id_id_idx ON webhook_deliveries (endpoint_id, id)`,
  `CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    response_snippet TEXT,
    CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, attempt)
  ) STRICT`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
