/**
 * The verify hot path's SQL, written once and compiled once: no query builder on the request.
 * Each table's own statements are its table module's (storage/tables/: challenges, credentials,
 * receipts, outbox events, usage events and rollups, quota counters), re-exported here; the
 * PostgreSQL statements that write several tables at once are built here from those modules.
 * Texts use PostgreSQL's `$n` placeholders; `forSqlite` turns them into `?` with the values in the
 * matching order. PostgreSQL runs them as named prepared statements (see PREPARED_NAMES and
 * open-database.ts), SQLite from its statement cache. One behavioural suite covers both dialects
 * (store-presence-hot-path.behaviour.test.ts); dialect-rows.test.ts holds them to the same rows.
 */
import {
  INSERT_CHALLENGE,
  NEW_CHALLENGE_COLUMNS,
  SETTLE_CHALLENGE,
  settlementSet,
  VERIFIED_SQL,
} from '../tables/challenges.js';
import { CLAIM_COUNTER, counterSet, CREDENTIAL_IN_USE_COLUMNS } from '../tables/credentials.js';
import { INSERT_EVENT, insertEventsFrom } from '../tables/outbox-events.js';
import { TAKE_QUOTA } from '../tables/quota-counters.js';
import { INSERT_RECEIPT, RECEIPT_COLUMNS } from '../tables/receipts.js';
import { inColumnOrder, literal } from '../tables/sql-text.js';
import { INSERT_USAGE, insertUsageFrom } from '../tables/usage-events.js';
import {
  ADD_TO_ROLLUPS,
  ADD_UNLESS_SEALED,
  addOneFrom,
  allRollupsOrFail,
  GRANULARITIES,
  PG_ROLLUP_SEALED_SQLSTATE,
  rollupsOrFail,
  USAGE_ROLLUP_COLUMNS,
} from '../tables/usage-rollups.js';

export {
  ADD_TO_ROLLUPS,
  CLAIM_COUNTER,
  INSERT_CHALLENGE,
  INSERT_EVENT,
  INSERT_RECEIPT,
  INSERT_USAGE,
  PG_ROLLUP_SEALED_SQLSTATE,
  SETTLE_CHALLENGE,
  TAKE_QUOTA,
};

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

/** $1 tenant. The per-tenant receipt sequence: locked until commit, so seq order is commit order. */
export const NEXT_RECEIPT_SEQ = `insert into tenant_counters (tenant_id, name, value) values ($1, 'receipts', 1)
  on conflict (tenant_id, name) do update set value = tenant_counters.value + 1
  returning value`;

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
    ${CLAIM_COUNTER}
    returning id),
  settled as (
    update challenges set ${settlementSet({
      ...VERIFIED_SQL,
      used_at: '$3',
      receipt_id: '$6',
      credential_ref: '$4',
    })}
     where tenant_id = $7 and id = $8 and status = 'pending' and exists (select 1 from cas)
    returning id),
  event as (
    ${insertEventsFrom('settled', {
      id: '$9::text',
      tenant_id: '$7',
      type: '$23::text',
      payload: '$10::text',
      created_at: '$3',
      trace_parent: '$22::text',
    })}
    returning id),
  usage as (
    ${insertUsageFrom('settled', {
      id: '$11::text',
      tenant_id: '$7',
      meter: '$24::text',
      quantity: '1',
      occurred_at: '$3',
      source_id: '$8',
    })}
    returning id),
  rollup as (
    ${addOneFrom('settled', '$7', '$24::text', ['$12', '$13', '$14'])}),
  seq as (
    insert into tenant_counters (tenant_id, name, value) select $7, 'receipts', 1 from settled
    on conflict (tenant_id, name) do update set value = tenant_counters.value + 1
    returning value),
  receipt as (
    insert into receipts (${RECEIPT_COLUMNS})
    select ${inColumnOrder(RECEIPT_COLUMNS, {
      id: '$6',
      tenant_id: '$7',
      challenge_id: '$8',
      credential_ref: '$4',
      subject: '$15::text',
      action_hash_hex: '$16::text',
      issued_at: '$17::bigint',
      canonical_json: '$18::text',
      hash_hex: '$19::text',
      kid: '$20::text',
      signature_b64url: '$21::text',
      seq: 'seq.value',
    })}
      from seq
    returning seq)
  select (select count(*) from cas)::int as claimed, (select count(*) from settled)::int as settled,
         (select count(*) from event)::int as events, (select count(*) from usage)::int as usages,
         ${allRollupsOrFail('settled')} as rollups, (select seq from receipt) as seq`;

/** The batch's buckets per member, GRANULARITIES in order: `(0, 'month', ok.month), …`. */
const BUCKETS_OF_OK = GRANULARITIES.map((g, rank) => `(${rank}, ${literal(g)}, ok.${g})`).join(', ');

/**
 * PostgreSQL: the whole write set of several successful verifications of ONE tenant in ONE
 * statement (pg-settle-lanes.ts batches them; a settle alone uses PG_SETTLE_ONE_VERIFIED above).
 * Each member is independent: its challenge is settled only if its own counter compare-and-set
 * matched, and its receipt, usage and event are written only if its challenge was still pending.
 * A batch holds each credential and each challenge at most once. Rows are locked in one order by
 * every batch: credentials by id, challenges by id, rollups month → day → hour, then the tenant's
 * receipt sequence, taken once for the batch and last, right before COMMIT; receipts are numbered
 * in member order. A sealed rollup fails the whole statement (usage-rollups.ts rollupsOrFail), so nothing commits.
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
    update credentials c set ${counterSet({
      sign_count: 'm.sign_count',
      backed_up: 'm.backed_up',
      last_used_at: 'm.used_at',
    })}
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
    update challenges ch set ${settlementSet({
      ...VERIFIED_SQL,
      used_at: 'm.used_at',
      receipt_id: 'm.receipt_id',
      credential_ref: 'm.credential_id',
    })}
      from m
     where ch.tenant_id = $1 and ch.id = m.challenge_id and ch.status = 'pending'
       and ch.id in (select id from settleable)
    returning ch.id),
  ok as (
    select m.*, row_number() over (order by m.n) as k, count(*) over () as total
      from m where m.challenge_id in (select id from settled)),
  event as (
    ${insertEventsFrom('ok', {
      id: 'event_id',
      tenant_id: '$1',
      type: 'event_type',
      payload: 'payload',
      created_at: 'used_at',
      trace_parent: 'trace_parent',
    })}
     order by k
    returning id),
  usage as (
    ${insertUsageFrom('ok', {
      id: 'usage_id',
      tenant_id: '$1',
      meter: 'meter',
      quantity: '1',
      occurred_at: 'used_at',
      source_id: 'challenge_id',
    })}
     order by k
    returning id),
  buckets as (
    select b.rank, b.granularity, b.bucket_start, ok.meter, count(*) as quantity
      from ok cross join lateral (values ${BUCKETS_OF_OK}) as b (rank, granularity, bucket_start)
     group by b.rank, b.granularity, b.bucket_start, ok.meter),
  rollup as (
    insert into usage_rollups (${USAGE_ROLLUP_COLUMNS})
    select ${inColumnOrder(USAGE_ROLLUP_COLUMNS, {
      tenant_id: '$1',
      granularity: 'granularity',
      bucket_start: 'bucket_start',
      meter: 'meter',
      quantity: 'quantity',
      sealed: '0',
    })}
      from buckets
     order by rank, bucket_start, meter
    ${ADD_UNLESS_SEALED}
    returning granularity),
  seq as (
    insert into tenant_counters (tenant_id, name, value)
    select $1, 'receipts', count(*) from ok having count(*) > 0
    on conflict (tenant_id, name) do update set value = tenant_counters.value + excluded.value
    returning value),
  receipt as (
    insert into receipts (${RECEIPT_COLUMNS})
    select ${inColumnOrder(RECEIPT_COLUMNS, {
      id: 'ok.receipt_id',
      tenant_id: '$1',
      challenge_id: 'ok.challenge_id',
      credential_ref: 'ok.credential_id',
      subject: 'ok.subject',
      action_hash_hex: 'ok.action_hash_hex',
      issued_at: 'ok.issued_at',
      canonical_json: 'ok.canonical_json',
      hash_hex: 'ok.hash_hex',
      kid: 'ok.kid',
      signature_b64url: 'ok.signature_b64url',
      seq: 'seq.value - ok.total + ok.k',
    })}
      from ok cross join seq order by ok.k
    returning challenge_id, seq)
  select (select coalesce(array_agg(id), '{}') from cas) as claimed,
         (select coalesce(array_agg(id), '{}') from settled) as settled,
         (select count(*) from event)::int as events, (select count(*) from usage)::int as usages,
         ${rollupsOrFail('(select count(*) from buckets)')} as rollups,
         (select coalesce(json_agg(json_build_array(challenge_id, seq)), '[]') from receipt) as receipts`;

/**
 * PostgreSQL: a denial's write set in one statement. $1 status, $2 used_at, $3 decision,
 * $4 reason, $5 credential ref, $6 tenant, $7 challenge id, $8 event id, $9 event payload JSON,
 * $10 usage id, $11 month, $12 day, $13 hour, $14 the event's trace parent, $15 the event's type,
 * $16 the usage's meter.
 */
export const PG_SETTLE_DENIED = `with settled as (
    update challenges set ${settlementSet({
      status: '$1',
      used_at: '$2',
      decision: '$3',
      reason: '$4',
      receipt_id: 'null',
      credential_ref: '$5',
    })}
     where tenant_id = $6 and id = $7 and status = 'pending'
    returning id),
  event as (
    ${insertEventsFrom('settled', {
      id: '$8::text',
      tenant_id: '$6',
      type: '$15::text',
      payload: '$9::text',
      created_at: '$2',
      trace_parent: '$14::text',
    })}
    returning id),
  usage as (
    ${insertUsageFrom('settled', {
      id: '$10::text',
      tenant_id: '$6',
      meter: '$16::text',
      quantity: '1',
      occurred_at: '$2',
      source_id: '$7',
    })}
    returning id),
  rollup as (
    ${addOneFrom('settled', '$6', '$16::text', ['$11', '$12', '$13'])})
  select (select count(*) from settled)::int as settled, (select count(*) from event)::int as events,
         (select count(*) from usage)::int as usages, ${allRollupsOrFail('settled')} as rollups`;

/**
 * PostgreSQL: a challenge creation's write set in ONE statement: the quota first, and the challenge,
 * its usage event and the rollups only if the quota had room. The per-tenant rows (quota counter,
 * rollups) are touched by this statement alone, right before COMMIT.
 * $1 tenant, $2 period start, $3 limit, $4..$12 the challenge (id, action hash, subject, purpose,
 * nonce, challenge, allow list JSON, policy id, created_at), $13 expires_at, $14 usage id,
 * $15 month, $16 day, $17 hour, $18 the usage's meter.
 */
export const PG_CREATE_CHALLENGE = `with quota as (
    ${TAKE_QUOTA}),
  challenge as (
    insert into challenges (${NEW_CHALLENGE_COLUMNS}, status)
    select ${inColumnOrder(NEW_CHALLENGE_COLUMNS, {
      id: '$4::text',
      tenant_id: '$1',
      action_hash_hex: '$5::text',
      subject: '$6::text',
      purpose: '$7::text',
      nonce_b64url: '$8::text',
      challenge_b64url: '$9::text',
      allow_credential_ids: '$10::text',
      policy_id: '$11::text',
      created_at: '$12::bigint',
      expires_at: '$13::bigint',
    })}, 'pending'
      from quota returning id),
  usage as (
    ${insertUsageFrom('challenge', {
      id: '$14::text',
      tenant_id: '$1',
      meter: '$18::text',
      quantity: '1',
      occurred_at: '$12::bigint',
      source_id: '$4::text',
    })}
    returning id),
  rollup as (
    ${addOneFrom('challenge', '$1', '$18::text', ['$15', '$16', '$17'])})
  select q.used, q.threshold_80_at, q.threshold_100_at, (select count(*) from challenge)::int as challenges,
         ${allRollupsOrFail('challenge')} as rollups
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
