/** Where each kind of sealed value lives (see domain/master-key/ports.ts): one line per column. */
import { sql, type Kysely } from 'kysely';
import type { SealedKind, SealedSecretRepo } from '../../domain/master-key/ports.js';
import type { Database } from '../schema.js';

const COLUMNS: Record<SealedKind, { table: keyof Database; key: readonly string[]; column: string }> = {
  'signing-key': { table: 'signing_keys', key: ['kid'], column: 'private_key_sealed' },
  'receipt-log-key': { table: 'receipt_log_keys', key: ['kid'], column: 'private_key_sealed' },
  'webhook-secret': { table: 'webhook_endpoints', key: ['id'], column: 'secret_sealed' },
  'webhook-previous-secret': { table: 'webhook_endpoints', key: ['id'], column: 'previous_secret_sealed' },
  'idempotency-response': {
    table: 'idempotency_keys',
    key: ['tenant_id', 'idempotency_key'],
    column: 'response_sealed',
  },
  'console-change-link': { table: 'console_changes', key: ['id'], column: 'approval_url_sealed' },
};

export function createSealedSecretRepo(db: Kysely<Database>): SealedSecretRepo {
  return {
    async list(kind, afterKey, limit) {
      const { table, key, column } = COLUMNS[kind];
      const keyList = sql.join(key.map((k) => sql.ref(k)));
      const after =
        afterKey === undefined
          ? sql`1 = 1`
          : sql`(${keyList}) > (${sql.join(afterKey.map((v) => sql`${v}`))})`;
      const rows = await sql<
        Record<string, string>
      >`select ${keyList}, ${sql.ref(column)} as sealed from ${sql.table(table)}
        where ${sql.ref(column)} is not null and ${after} order by ${keyList} limit ${limit}`.execute(db);
      return rows.rows.map((row) => ({ key: key.map((k) => String(row[k])), sealed: String(row['sealed']) }));
    },
    async replace(kind, keyValues, expected, sealed) {
      const { table, key, column } = COLUMNS[kind];
      const match = sql.join(
        key.map((k, i) => sql`${sql.ref(k)} = ${keyValues[i] ?? ''}`),
        sql` and `,
      );
      const result = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${sealed}
        where ${match} and ${sql.ref(column)} = ${expected}`.execute(db);
      return Number(result.numAffectedRows ?? 0n) === 1;
    },
  };
}
