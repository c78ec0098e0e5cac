// Seeds one tenant with N real, well-formed receipts for bench/export: each one a real P-256
// assertion over its own action-bound challenge, sealed (RFC 8785 + Ed25519) by the service
// signer exactly as verify-presence does. Enrollment goes through the domain; the receipt and
// challenge rows are batch-inserted with SQL (seq assigned in order, counter set at the end).
/* global Buffer, performance */
import { randomBytes } from 'node:crypto';
import Database from '../../packages/server/dist/storage/sqlite-driver.js';
import pg from 'pg';
import { deriveChallenge } from '@presence/sdk/node';
import { depsFromStore } from '../../packages/server/dist/compose.js';
import { OWNER_SCOPES } from '../../packages/server/dist/domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../../packages/server/dist/domain/api-keys/create-api-key.js';
import { createRegistrationOptions } from '../../packages/server/dist/domain/credentials/create-registration-options.js';
import { registerCredential } from '../../packages/server/dist/domain/credentials/register-credential.js';
import { newId } from '../../packages/server/dist/domain/ids.js';
import { CHALLENGE_COLUMNS, challengeValues } from '../../packages/server/dist/storage/tables/challenges.js';
import { RECEIPT_COLUMNS, receiptValues } from '../../packages/server/dist/storage/tables/receipts.js';
import { currentPolicy } from '../../packages/server/dist/domain/policy/get-policy.js';
import { buildReceipt, sealReceipt } from '../../packages/server/dist/domain/receipts/build-receipt.js';
import { createTenant } from '../../packages/server/dist/domain/tenants/create-tenant.js';
import { migrateDatabase } from '../../packages/server/dist/storage/migrate-database.js';
import { openStore } from '../../packages/server/dist/storage/open-store.js';
import { SoftAuthenticator } from '../verify/soft-authenticator.mjs';

const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';

/**
 * Returns { tenantId, apiKey, from, to } for an export covering every seeded receipt.
 * `databaseUrl` unset: SQLite at `sqlitePath`; `postgres://…`: that (empty) database.
 */
export async function seedReceipts({ sqlitePath, databaseUrl, masterKey, receipts, credentials = 200, log }) {
  const options = { sqlitePath, databaseUrl };
  await migrateDatabase(options);
  const store = await openStore(options);
  // The store closes before the seeding loop, which can outlast the signer's freshness bound
  // (2 × refresh, ADR 0007): a one-day refresh interval keeps the single seeding key usable.
  const deps = await depsFromStore(
    store,
    masterKey,
    undefined, // clock
    undefined, // webhook transport
    undefined, // billing
    undefined, // previous master key
    undefined, // log origin
    86_400_000, // signing-key refresh
  );
  const { tenant } = await createTenant(deps, { name: 'bench', rpId: RP_ID, origins: [ORIGIN] });
  const { secret: apiKey } = await createApiKey(
    deps,
    tenant.id,
    {
      name: 'export',
      scopes: ['receipts:export', 'receipts:read'],
    },
    OWNER_SCOPES,
  );
  const enrolled = [];
  for (let i = 0; i < credentials; i++) enrolled.push(await enroll(deps, tenant.id, `subject-${i}`));
  const policy = await currentPolicy(deps, tenant.id);
  await store.close();
  const from = Date.now() + 1000; // after the signing key's notBefore
  const sink = databaseUrl ? await postgresSink(databaseUrl) : sqliteSink(sqlitePath);
  const started = performance.now();
  let seq = 0;
  while (seq < receipts) {
    const rows = [];
    for (let k = 0; k < 5000 && seq < receipts; k++) {
      seq += 1;
      const { authenticator, credential } = enrolled[seq % enrolled.length];
      rows.push(oneReceipt(deps, authenticator, credential, policy, from + seq * 2, seq));
    }
    await sink.insert(rows);
    if (seq % 100_000 === 0)
      log(`  seeded ${seq} receipts (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await sink.finish(tenant.id, receipts);
  return { tenantId: tenant.id, apiKey, from, to: from + receipts * 2 + 1000 };
}

async function enroll(deps, tenantId, subject) {
  const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
  const options = await createRegistrationOptions(deps, tenantId, { subject });
  const credential = await registerCredential(deps, tenantId, {
    registrationId: options.registrationId,
    credential: authenticator.register(options.publicKey.challenge),
  });
  return { authenticator, credential: await deps.store.credentials.get(tenantId, credential.id) };
}

function oneReceipt(deps, authenticator, credential, policy, at, seq) {
  const actionHashHex = randomBytes(32).toString('hex');
  const nonce = randomBytes(32);
  const challengeB64Url = deriveChallenge(Buffer.from(actionHashHex, 'hex'), nonce).toString('base64url');
  const receiptId = newId(deps, 'rct');
  const challenge = {
    id: newId(deps, 'chl'),
    tenantId: credential.tenantId,
    actionHashHex,
    subject: credential.subject,
    purpose: 'payout',
    nonceB64Url: nonce.toString('base64url'),
    challengeB64Url,
    allowCredentialIds: [credential.credentialId],
    policyId: policy.id,
    createdAt: at - 4000,
    expiresAt: at + 116_000,
    status: 'verified',
    usedAt: at,
    decision: 'PRESENCE_VERIFIED',
    reason: null,
    receiptId,
    credentialRef: credential.id,
  };
  const response = authenticator.assert(challengeB64Url).response;
  const b = (f) => Buffer.from(response[f], 'base64url');
  const assertion = {
    ok: true,
    flags: { UP: true, UV: true, BE: false, BS: false, AT: false, ED: false },
    signCount: authenticator.signCount,
    origin: ORIGIN,
    topOrigin: null,
    crossOrigin: false,
    authenticatorData: b('authenticatorData'),
    clientDataJSON: b('clientDataJSON'),
    signature: b('signature'),
    userHandle: null,
  };
  const receipt = sealReceipt(
    deps.signer,
    buildReceipt({ receiptId, challenge, credential, policy, assertion, verifiedAt: at }),
  );
  return { challenge, receipt, seq };
}

const COUNTER_UPSERT = `insert into tenant_counters (tenant_id, name, value) values ($1, 'receipts', $2)
  on conflict (tenant_id, name) do update set value = excluded.value`;

function sqliteSink(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only; the server opens the file with its own settings
  const marks = (n) => Array(n).fill('?').join(', ');
  const challenge = db.prepare(
    `insert into challenges (${CHALLENGE_COLUMNS}) values (${marks(CHALLENGE_COLUMNS.length)})`,
  );
  const receipt = db.prepare(
    `insert into receipts (${RECEIPT_COLUMNS}) values (${marks(RECEIPT_COLUMNS.length)})`,
  );
  return {
    async insert(rows) {
      db.transaction(() => {
        for (const { challenge: c, receipt: r, seq } of rows) {
          challenge.run(...challengeValues(c));
          receipt.run(...receiptValues(r, seq));
        }
      })();
    },
    async finish(tenantId, n) {
      db.prepare(COUNTER_UPSERT.replace('$1', '?').replace('$2', '?')).run(tenantId, n);
      db.close();
    },
  };
}

/** Multi-row INSERTs of 500 rows, one transaction per batch; ANALYZE at the end, as autovacuum would. */
async function postgresSink(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const insertMany = async (table, columns, rows) => {
    for (let i = 0; i < rows.length; i += 500) {
      const slice = rows.slice(i, i + 500);
      const params = slice.flat();
      const tuples = slice.map(
        (_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
      );
      await client.query(`insert into ${table} (${columns}) values ${tuples.join(', ')}`, params);
    }
  };
  return {
    async insert(rows) {
      await client.query('begin');
      await insertMany(
        'challenges',
        CHALLENGE_COLUMNS,
        rows.map((x) => challengeValues(x.challenge)),
      );
      await insertMany(
        'receipts',
        RECEIPT_COLUMNS,
        rows.map((x) => receiptValues(x.receipt, x.seq)),
      );
      await client.query('commit');
    },
    async finish(tenantId, n) {
      await client.query(COUNTER_UPSERT, [tenantId, n]);
      await client.query('vacuum analyze receipts');
      await client.query('vacuum analyze challenges');
      await client.end();
    },
  };
}
