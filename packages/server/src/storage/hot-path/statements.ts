/**
 * The verify hot path's SQL, written once and compiled once: no query builder on the request.
 * Texts use PostgreSQL's `$n` placeholders; `forSqlite` turns them into `?` with the values in the
 * matching order. PostgreSQL runs them as named prepared statements (see PREPARED_NAMES and
 * open-database.ts), SQLite from its statement cache. One behavioural suite covers both dialects
 * (store-presence-hot-path.behaviour.test.ts).
 */
import { CREDENTIAL_IN_USE_COLUMNS } from '../repos/credentials.js';
import { OUTBOX_EVENT_COLUMNS } from '../tables/outbox-events.js';
import { RECEIPT_COLUMNS } from '../tables/receipts.js';
import { USAGE_EVENT_COLUMNS } from '../tables/usage-events.js';

/** `($1, $2, …)` for the columns of an insert. */
const placeholders = (columns: readonly string[]) => `(${columns.map((_, i) => `$${i + 1}`).join(', ')})`;

/**
 * The credential's columns a presence check reads (not the enrollment evidence), prefixed `cr_`
 * so they do not collide with the challenge's.
 */
export const CREDENTIAL_ALIASES = CREDENTIAL_IN_USE_COLUMNS.map((c) => [c, `cr_${c}`] as const);

/** $1 tenant, $2 challenge id, $3 WebAuthn credential id (null: none presented). */
export const READ_FOR_VERIFY = `select ch.*, ${CREDENTIAL_ALIASES.map(([c, a]) => `cr.${c} as ${a}`).join(', ')}
  from challenges ch
  left join credentials cr on cr.tenant_id = ch.tenant_id and cr.credential_id = $3
  where ch.tenant_id = $1 and ch.id = $2`;

/** $1 tenant, $2 subject, $3 limit: the subject's active credentials, by row id. */
export const ALLOWED_CREDENTIALS = `select credential_id, transports from credentials
  where tenant_id = $1 and subject = $2 and revoked_at is null order by id limit $3`;

/** $1 signCount, $2 backedUp, $3 at, $4 credential row id, $5 expected signCount. */
export const CLAIM_COUNTER = `update credentials set sign_count = $1, backed_up = $2, last_used_at = $3
  where id = $4 and revoked_at is null and sign_count = $5`;

/** $1 status, $2 used_at, $3 decision, $4 reason, $5 receipt id, $6 credential ref, $7 tenant, $8 challenge. */
export const SETTLE_CHALLENGE = `update challenges set status = $1, used_at = $2, decision = $3, reason = $4,
  receipt_id = $5, credential_ref = $6
  where tenant_id = $7 and id = $8 and status = 'pending'`;

/** The event's columns in OUTBOX_EVENT_COLUMNS order (tables/outbox-events.ts `outboxEventValues`). */
export const INSERT_EVENT = `insert into outbox_events (${OUTBOX_EVENT_COLUMNS})
  values ${placeholders(OUTBOX_EVENT_COLUMNS)}`;

/** The usage event's columns in USAGE_EVENT_COLUMNS order (tables/usage-events.ts `usageEventValues`). */
export const INSERT_USAGE = `insert into usage_events (${USAGE_EVENT_COLUMNS})
  values ${placeholders(USAGE_EVENT_COLUMNS)}`;

/**
 * $1 tenant, $2 meter, $3 quantity, $4 month start, $5 day start, $6 hour start. Month first (it
 * carries the seal; every writer locks the buckets in this order). Returns one row per bucket
 * counted: fewer than three means the month is sealed.
 */
export const ADD_TO_ROLLUPS = `insert into usage_rollups (tenant_id, granularity, bucket_start, meter, quantity, sealed)
  values ($1, 'month', $4, $2, $3, 0), ($1, 'day', $5, $2, $3, 0), ($1, 'hour', $6, $2, $3, 0)
  on conflict (tenant_id, granularity, bucket_start, meter)
  do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0
  returning granularity`;

/** $1 tenant. The per-tenant receipt sequence: locked until commit, so seq order is commit order. */
export const NEXT_RECEIPT_SEQ = `insert into tenant_counters (tenant_id, name, value) values ($1, 'receipts', 1)
  on conflict (tenant_id, name) do update set value = tenant_counters.value + 1
  returning value`;

/** $1..$12 the receipt's columns in RECEIPT_COLUMNS order (tables/receipts.ts `receiptValues`). */
export const INSERT_RECEIPT = `insert into receipts (${RECEIPT_COLUMNS})
  values ${placeholders(RECEIPT_COLUMNS)}`;

/**
 * PostgreSQL: the number of rollup rows a statement's `rollup` CTE counted, which must be the number
 * `wanted` (one per bucket the statement's usage falls in). When a rollup was sealed (its month is
 * invoiced) it counted fewer, and the division by zero (SQLSTATE 22012) fails the WHOLE statement,
 * so it commits nothing even when it runs on its own (autocommit). The hot path turns that error
 * into BillingPeriodClosed.
 */
const ROLLUPS_OR_FAIL = (wanted: string) =>
  `(select count(*) / (count(*) = ${wanted})::int from rollup)::int`;

/** The rule above for a statement that counts one unit, if its `written` CTE wrote: month, day, hour. */
const ALL_ROLLUPS_OR_FAIL = (written: string) =>
  ROLLUPS_OR_FAIL(`(case when exists (select 1 from ${written}) then 3 else 0 end)`);

/** SQLSTATE of the failure above. */
export const PG_ROLLUP_SEALED_SQLSTATE = '22012';

/**
 * PostgreSQL: ONE successful verification's whole write set in one statement, for a settle that
 * runs alone (PG_SETTLE_VERIFIED below takes a batch of several). The challenge is settled only if
 * the counter compare-and-set matched, and everything else only if the challenge was still pending;
 * the per-tenant rows (rollups, receipt sequence) are touched by this statement alone, right before
 * COMMIT.
 * $1 signCount, $2 backedUp, $3 at, $4 credential row id, $5 expected signCount,
 * $6 receipt id, $7 tenant, $8 challenge id, $9 event id, $10 event payload JSON,
 * $11 usage id, $12 month, $13 day, $14 hour,
 * $15 subject, $16 action hash, $17 issued_at, $18 canonical JSON, $19 hash, $20 kid, $21 signature,
 * $22 the event's trace parent, $23 the event's type, $24 the usage's meter.
 */
export const PG_SETTLE_ONE_VERIFIED = `with cas as (
    update credentials set sign_count = $1, backed_up = $2, last_used_at = $3
     where id = $4 and revoked_at is null and sign_count = $5
    returning id),
  settled as (
    update challenges set status = 'verified', used_at = $3, decision = 'PRESENCE_VERIFIED', reason = null,
           receipt_id = $6, credential_ref = $4
     where tenant_id = $7 and id = $8 and status = 'pending' and exists (select 1 from cas)
    returning id),
  event as (
    insert into outbox_events (id, tenant_id, type, payload, created_at, trace_parent)
    select $9::text, $7, $23::text, $10::text, $3, $22::text from settled returning id),
  usage as (
    insert into usage_events (id, tenant_id, meter, quantity, occurred_at, source_id)
    select $11::text, $7, $24::text, 1, $3, $8 from settled returning id),
  rollup as (
    insert into usage_rollups (tenant_id, granularity, bucket_start, meter, quantity, sealed)
    select $7, b.granularity, b.bucket_start, $24::text, 1, 0
      from settled cross join (values ('month', $12::bigint), ('day', $13::bigint), ('hour', $14::bigint))
           as b (granularity, bucket_start)
    on conflict (tenant_id, granularity, bucket_start, meter)
    do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0
    returning granularity),
  seq as (
    insert into tenant_counters (tenant_id, name, value) select $7, 'receipts', 1 from settled
    on conflict (tenant_id, name) do update set value = tenant_counters.value + 1
    returning value),
  receipt as (
    insert into receipts (${RECEIPT_COLUMNS})
    select $6, $7, $8, $4, $15::text, $16::text, $17::bigint, $18::text, $19::text, $20::text, $21::text, seq.value
      from seq
    returning seq)
  select (select count(*) from cas)::int as claimed, (select count(*) from settled)::int as settled,
         (select count(*) from event)::int as events, (select count(*) from usage)::int as usages,
         ${ALL_ROLLUPS_OR_FAIL('settled')} as rollups, (select seq from receipt) as seq`;

/**
 * PostgreSQL: the whole write set of several successful verifications of ONE tenant in ONE
 * statement (pg-settle-lanes.ts batches them; a settle alone uses PG_SETTLE_ONE_VERIFIED above).
 * Each member is independent: its challenge is settled only if its own counter compare-and-set
 * matched, and its receipt, usage and event are written only if its challenge was still pending.
 * A batch holds each credential and each challenge at most once. Rows are locked in one order by
 * every batch: credentials by id, challenges by id, rollups month → day → hour, then the tenant's
 * receipt sequence, taken once for the batch and last, right before COMMIT; receipts are numbered
 * in member order. A sealed rollup fails the whole statement (ROLLUPS_OR_FAIL), so nothing commits.
 * The final select reads the CTEs in that order (PostgreSQL runs a CTE when it is first read).
 * $1 tenant; then one array per column, member i at index i:
 * $2 credential row id, $3 expected signCount, $4 new signCount, $5 backedUp (0/1), $6 used_at,
 * $7 receipt id, $8 challenge id, $9 event id, $10 event payload JSON, $11 the event's trace parent
 * (null: none), $12 usage id, $13 month, $14 day, $15 hour, $16 subject, $17 action hash,
 * $18 issued_at, $19 canonical JSON, $20 hash, $21 kid, $22 signature, $23 the event's type,
 * $24 the usage's meter.
 * Returns the credential ids claimed, the challenge ids settled and [challenge id, seq] per receipt.
 */
export const PG_SETTLE_VERIFIED = `with m as (
    select * from unnest($2::text[], $3::bigint[], $4::bigint[], $5::smallint[], $6::bigint[], $7::text[],
                         $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[],
                         $14::bigint[], $15::bigint[], $16::text[], $17::text[], $18::bigint[], $19::text[],
                         $20::text[], $21::text[], $22::text[], $23::text[], $24::text[]) with ordinality
      as m (credential_id, expected_sign_count, sign_count, backed_up, used_at, receipt_id, challenge_id,
            event_id, payload, trace_parent, usage_id, month, day, hour, subject, action_hash_hex, issued_at,
            canonical_json, hash_hex, kid, signature_b64url, event_type, meter, n)),
  claimable as materialized (
    select c.id from credentials c
     where c.tenant_id = $1 and c.id in (select credential_id from m)
     order by c.id for update),
  cas as (
    update credentials c set sign_count = m.sign_count, backed_up = m.backed_up, last_used_at = m.used_at
      from m
     where c.id = m.credential_id and c.id in (select id from claimable)
       and c.revoked_at is null and c.sign_count = m.expected_sign_count
    returning c.id),
  settleable as materialized (
    select ch.id from challenges ch
     where ch.tenant_id = $1 and ch.status = 'pending'
       and ch.id in (select challenge_id from m where credential_id in (select id from cas))
     order by ch.id for update),
  settled as (
    update challenges ch set status = 'verified', used_at = m.used_at, decision = 'PRESENCE_VERIFIED',
           reason = null, receipt_id = m.receipt_id, credential_ref = m.credential_id
      from m
     where ch.tenant_id = $1 and ch.id = m.challenge_id and ch.status = 'pending'
       and ch.id in (select id from settleable)
    returning ch.id),
  ok as (
    select m.*, row_number() over (order by m.n) as k, count(*) over () as total
      from m where m.challenge_id in (select id from settled)),
  event as (
    insert into outbox_events (id, tenant_id, type, payload, created_at, trace_parent)
    select event_id, $1, event_type, payload, used_at, trace_parent from ok order by k
    returning id),
  usage as (
    insert into usage_events (id, tenant_id, meter, quantity, occurred_at, source_id)
    select usage_id, $1, meter, 1, used_at, challenge_id from ok order by k
    returning id),
  buckets as (
    select b.rank, b.granularity, b.bucket_start, ok.meter, count(*) as quantity
      from ok cross join lateral (values (0, 'month', ok.month), (1, 'day', ok.day), (2, 'hour', ok.hour))
           as b (rank, granularity, bucket_start)
     group by b.rank, b.granularity, b.bucket_start, ok.meter),
  rollup as (
    insert into usage_rollups (tenant_id, granularity, bucket_start, meter, quantity, sealed)
    select $1, granularity, bucket_start, meter, quantity, 0 from buckets
     order by rank, bucket_start, meter
    on conflict (tenant_id, granularity, bucket_start, meter)
    do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0
    returning granularity),
  seq as (
    insert into tenant_counters (tenant_id, name, value)
    select $1, 'receipts', count(*) from ok having count(*) > 0
    on conflict (tenant_id, name) do update set value = tenant_counters.value + excluded.value
    returning value),
  receipt as (
    insert into receipts (${RECEIPT_COLUMNS})
    select ok.receipt_id, $1, ok.challenge_id, ok.credential_id, ok.subject, ok.action_hash_hex, ok.issued_at,
           ok.canonical_json, ok.hash_hex, ok.kid, ok.signature_b64url, seq.value - ok.total + ok.k
      from ok cross join seq order by ok.k
    returning challenge_id, seq)
  select (select coalesce(array_agg(id), '{}') from cas) as claimed,
         (select coalesce(array_agg(id), '{}') from settled) as settled,
         (select count(*) from event)::int as events, (select count(*) from usage)::int as usages,
         ${ROLLUPS_OR_FAIL('(select count(*) from buckets)')} as rollups,
         (select coalesce(json_agg(json_build_array(challenge_id, seq)), '[]') from receipt) as receipts`;

/**
 * PostgreSQL: a denial's write set in one statement. $1 status, $2 used_at, $3 decision,
 * $4 reason, $5 credential ref, $6 tenant, $7 challenge id, $8 event id, $9 event payload JSON,
 * $10 usage id, $11 month, $12 day, $13 hour, $14 the event's trace parent, $15 the event's type,
 * $16 the usage's meter.
 */
export const PG_SETTLE_DENIED = `with settled as (
    update challenges set status = $1, used_at = $2, decision = $3, reason = $4, receipt_id = null,
           credential_ref = $5
     where tenant_id = $6 and id = $7 and status = 'pending'
    returning id),
  event as (
    insert into outbox_events (id, tenant_id, type, payload, created_at, trace_parent)
    select $8::text, $6, $15::text, $9::text, $2, $14::text from settled returning id),
  usage as (
    insert into usage_events (id, tenant_id, meter, quantity, occurred_at, source_id)
    select $10::text, $6, $16::text, 1, $2, $7 from settled returning id),
  rollup as (
    insert into usage_rollups (tenant_id, granularity, bucket_start, meter, quantity, sealed)
    select $6, b.granularity, b.bucket_start, $16::text, 1, 0
      from settled cross join (values ('month', $11::bigint), ('day', $12::bigint), ('hour', $13::bigint))
           as b (granularity, bucket_start)
    on conflict (tenant_id, granularity, bucket_start, meter)
    do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0
    returning granularity)
  select (select count(*) from settled)::int as settled, (select count(*) from event)::int as events,
         (select count(*) from usage)::int as usages, ${ALL_ROLLUPS_OR_FAIL('settled')} as rollups`;

const CHALLENGE_COLUMNS = `id, tenant_id, action_hash_hex, subject, purpose, nonce_b64url, challenge_b64url,
  allow_credential_ids, policy_id, created_at, expires_at, status`;

/** $1..$11 the new challenge's columns in CHALLENGE_COLUMNS order (status is 'pending'). */
export const INSERT_CHALLENGE = `insert into challenges (${CHALLENGE_COLUMNS})
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending')`;

/**
 * $1 tenant, $2 period start, $3 limit (null: none). Adds one challenge to the period's counter
 * unless it reached the limit; no row back when full. Locks the counter row until commit.
 */
export const TAKE_QUOTA = `insert into quota_counters (tenant_id, period_start, used) values ($1, $2, 1)
  on conflict (tenant_id, period_start) do update set used = quota_counters.used + 1
  where $3 is null or quota_counters.used < $3
  returning used, threshold_80_at, threshold_100_at`;

/**
 * PostgreSQL: a challenge creation's write set in ONE statement: the quota first, and the challenge,
 * its usage event and the rollups only if the quota had room. The per-tenant rows (quota counter,
 * rollups) are touched by this statement alone, right before COMMIT.
 * $1 tenant, $2 period start, $3 limit, $4..$12 the challenge (id, action hash, subject, purpose,
 * nonce, challenge, allow list JSON, policy id, created_at), $13 expires_at, $14 usage id,
 * $15 month, $16 day, $17 hour, $18 the usage's meter.
 */
export const PG_CREATE_CHALLENGE = `with quota as (
    insert into quota_counters (tenant_id, period_start, used) values ($1, $2, 1)
    on conflict (tenant_id, period_start) do update set used = quota_counters.used + 1
    where $3::bigint is null or quota_counters.used < $3::bigint
    returning used, threshold_80_at, threshold_100_at),
  challenge as (
    insert into challenges (${CHALLENGE_COLUMNS})
    select $4::text, $1, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text,
           $12::bigint, $13::bigint, 'pending'
      from quota returning id),
  usage as (
    insert into usage_events (id, tenant_id, meter, quantity, occurred_at, source_id)
    select $14::text, $1, $18::text, 1, $12::bigint, $4::text from challenge returning id),
  rollup as (
    insert into usage_rollups (tenant_id, granularity, bucket_start, meter, quantity, sealed)
    select $1, b.granularity, b.bucket_start, $18::text, 1, 0
      from challenge cross join (values ('month', $15::bigint), ('day', $16::bigint), ('hour', $17::bigint))
           as b (granularity, bucket_start)
    on conflict (tenant_id, granularity, bucket_start, meter)
    do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0
    returning granularity)
  select q.used, q.threshold_80_at, q.threshold_100_at, (select count(*) from challenge)::int as challenges,
         ${ALL_ROLLUPS_OR_FAIL('challenge')} as rollups
    from quota q`;

/** Every hot-path statement by name. */
const HOT_STATEMENTS = {
  READ_FOR_VERIFY,
  ALLOWED_CREDENTIALS,
  CLAIM_COUNTER,
  SETTLE_CHALLENGE,
  INSERT_EVENT,
  INSERT_USAGE,
  ADD_TO_ROLLUPS,
  NEXT_RECEIPT_SEQ,
  INSERT_RECEIPT,
  PG_SETTLE_ONE_VERIFIED,
  PG_SETTLE_VERIFIED,
  PG_SETTLE_DENIED,
  INSERT_CHALLENGE,
  TAKE_QUOTA,
  PG_CREATE_CHALLENGE,
};

/** PostgreSQL names of the statements above: prepared once per pooled connection, then reused. */
export const PREPARED_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(HOT_STATEMENTS).map(([name, text]) => [text, `presence_${name.toLowerCase()}`]),
);

/** `$n` placeholders → `?` for SQLite, with a function that orders the values to match. */
export function forSqlite(text: string): { text: string; order: (values: readonly unknown[]) => unknown[] } {
  const indexes: number[] = [];
  const converted = text.replace(/\$(\d+)(::\w+)?/g, (_m, n: string) => {
    indexes.push(Number(n) - 1);
    return '?';
  });
  return { text: converted, order: (values) => indexes.map((i) => values[i]) };
}

/** The SQLite form of every hot statement, converted once when the module loads. */
export const SQLITE_FORMS: ReadonlyMap<string, ReturnType<typeof forSqlite>> = new Map(
  Object.values(HOT_STATEMENTS).map((text) => [text, forSqlite(text)]),
);
