/**
 * Retention's tables: one line each, in pruning order (children before parents, so foreign keys
 * never block a delete). A row goes only when nothing that must stay references it: a challenge
 * that backs a receipt (its `receipt_id`, or a receipt's `challenge_id`) is kept forever, as is a
 * registration a credential came from. A target whose cutoff is unset (0 days) is skipped.
 * To prune a new table, add one entry here.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RetentionCutoffs, RetentionRepo } from '../../domain/retention/ports.js';
import type { Database } from '../schema.js';

interface Target {
  table: keyof Database;
  key: readonly string[];
  where: (c: RetentionCutoffs) => RawBuilder<unknown> | undefined;
}

const when = (cutoff: number | undefined, condition: (cutoff: number) => RawBuilder<unknown>) =>
  cutoff === undefined ? undefined : condition(cutoff);

const TARGETS: readonly Target[] = [
  {
    table: 'webhook_attempts',
    key: ['delivery_id', 'attempt'],
    where: (c) =>
      when(
        c.deliveriesBefore,
        (t) =>
          sql`started_at < ${t} and exists (select 1 from webhook_deliveries d where d.id = webhook_attempts.delivery_id and d.completed_at is not null)`,
      ),
  },
  {
    table: 'webhook_deliveries',
    key: ['id'],
    where: (c) =>
      when(
        c.deliveriesBefore,
        (t) =>
          sql`completed_at < ${t} and not exists (select 1 from webhook_attempts a where a.delivery_id = webhook_deliveries.id)`,
      ),
  },
  {
    table: 'outbox_events',
    key: ['id'],
    where: (c) =>
      when(
        c.eventsBefore,
        (t) =>
          sql`fanned_out_at < ${t} and not exists (select 1 from webhook_deliveries d where d.event_id = outbox_events.id)`,
      ),
  },
  {
    table: 'challenges',
    key: ['id'],
    where: (c) =>
      when(
        c.challengesBefore,
        (t) =>
          sql`expires_at < ${t} and receipt_id is null and not exists (select 1 from receipts r where r.tenant_id = challenges.tenant_id and r.challenge_id = challenges.id)`,
      ),
  },
  {
    table: 'registrations',
    key: ['id'],
    where: (c) =>
      when(
        c.challengesBefore,
        (t) =>
          sql`expires_at < ${t} and not exists (select 1 from credentials c where c.registration_id = registrations.id)`,
      ),
  },
  {
    // Console sessions end at their absolute expiry or when revoked (sign-out); nothing references them.
    table: 'console_sessions',
    key: ['id'],
    where: (c) =>
      when(
        c.challengesBefore,
        (t) => sql`expires_at < ${t} or (revoked_at is not null and revoked_at < ${t})`,
      ),
  },
];

export function createRetentionRepo(db: Kysely<Database>): RetentionRepo {
  return {
    targets: TARGETS.map((t) => t.table),
    async pruneBatch(name, cutoffs, limit) {
      const target = TARGETS.find((t) => t.table === name);
      if (target === undefined) throw new Error(`no retention target ${name}`);
      const condition = target.where(cutoffs);
      if (condition === undefined) return 0;
      const table = sql.table(target.table);
      const key = sql.join(target.key.map((k) => sql.ref(k)));
      const result =
        await sql`delete from ${table} where (${key}) in (select ${key} from ${table} where ${condition} limit ${limit})`.execute(
          db,
        );
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}
