/**
 * Retention's tables: one line each, in pruning order (children before parents, so foreign keys
 * never block a delete). A row goes only when nothing that must stay references it: a challenge
 * that backs a receipt (its `receipt_id`, or a receipt's `challenge_id`) is kept forever, as is a
 * registration a credential came from, and an approval that is approved, has an approval set, or
 * whose ceremonies issued a receipt (with its approver rows and ceremonies, which tie the receipt to
 * it). A target whose cutoff is unset (0 days) is skipped.
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

/**
 * An approval that ended without approval (expired, cancelled, rejected) before `t`, has no approval
 * set and no receipt from any of its ceremonies (an approver's decision, or one refused after the
 * approval was final): nothing of it is evidence, so it and its approver and ceremony rows may go.
 */
function finishedApproval(alias: string, t: number): RawBuilder<unknown> {
  const id = sql.ref(`${alias}.id`);
  return sql`${sql.ref(`${alias}.status`)} in ('expired', 'cancelled', 'rejected') and ${sql.ref(`${alias}.decided_at`)} < ${t}
    and not exists (select 1 from approval_sets s where s.approval_id = ${id})
    and not exists (select 1 from approval_approvers p where p.approval_id = ${id} and p.receipt_id is not null)
    and not exists (select 1 from approval_challenges ac join receipts r on r.tenant_id = ac.tenant_id and r.challenge_id = ac.challenge_id where ac.approval_id = ${id})`;
}

const ofFinishedApproval = (table: string, t: number) =>
  sql`exists (select 1 from approvals a where a.id = ${sql.ref(`${table}.approval_id`)} and ${finishedApproval('a', t)})`;

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
  {
    // A console change that ended without being applied, or still marked pending although its
    // approval ended unapproved (or lapsed) before the cutoff, so it can never be applied; an applied
    // one stays (the audit log links it, evidence of what was applied), a pending one whose approval
    // may still pass or has passed waits. Its approval follows the approval rules below. Never
    // console_settings.
    table: 'console_changes',
    key: ['id'],
    where: (c) =>
      when(
        c.approvalsBefore,
        (t) =>
          sql`(status in ('stale', 'rejected', 'expired', 'cancelled') and updated_at < ${t}) or (status = 'pending' and exists (select 1 from approvals a where a.id = console_changes.approval_id and ((a.status in ('expired', 'cancelled', 'rejected') and a.decided_at < ${t}) or (a.status = 'pending' and a.expires_at < ${t}))))`,
      ),
  },
  {
    table: 'approval_approvers',
    key: ['approval_id', 'subject'],
    where: (c) => when(c.approvalsBefore, (t) => ofFinishedApproval('approval_approvers', t)),
  },
  {
    table: 'approval_challenges',
    key: ['challenge_id'],
    where: (c) => when(c.approvalsBefore, (t) => ofFinishedApproval('approval_challenges', t)),
  },
  {
    table: 'approvals',
    key: ['id'],
    where: (c) =>
      when(
        c.approvalsBefore,
        (t) =>
          sql`${finishedApproval('approvals', t)} and not exists (select 1 from approval_approvers p2 where p2.approval_id = approvals.id) and not exists (select 1 from approval_challenges c2 where c2.approval_id = approvals.id)`,
      ),
  },
  {
    // Single use: a link is done once used or expired; the credential it made stays with its registration.
    table: 'enrollment_links',
    key: ['id'],
    where: (c) =>
      when(c.approvalsBefore, (t) => sql`(used_at is not null and used_at < ${t}) or expires_at < ${t}`),
  },
  {
    // A claim whose holder's time is over is as good as none (the next claim overwrites it).
    table: 'unique_action_claims',
    key: ['tenant_id', 'action_hash_hex'],
    where: (c) => when(c.approvalsBefore, (t) => sql`held_until < ${t}`),
  },
];

/** The pruned tables in pruning order (docs/operations.md#retention lists them, then idempotency keys). */
export const RETENTION_TABLES: readonly string[] = TARGETS.map((t) => t.table);

export function createRetentionRepo(db: Kysely<Database>): RetentionRepo {
  return {
    targets: RETENTION_TABLES,
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
