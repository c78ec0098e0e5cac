// In-process micro-benchmarks for bench/verify (the profile evidence): what one signature check
// costs raw, through @simplewebauthn/server, and through the service's own verifier.
// Standalone: `node bench/verify/micro.mjs [--ms 1000]` (after `npm run build`).
/* global performance, Buffer, process, console */
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from '../../packages/server/dist/storage/sqlite-driver.js';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { SoftAuthenticator } from './soft-authenticator.mjs';
import {
  importCoseKey,
  PublicKeyCache,
} from '../../packages/server/dist/domain/webauthn/public-key-cache.js';
import { verifyAssertion } from '../../packages/server/dist/domain/webauthn/verify-assertion.js';

const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';

/** µs/op of fn (sync or async), after a short warm-up; bounded by `ms` and `maxIterations`. */
async function time(fn, { ms, maxIterations = 200_000 }) {
  for (let i = 0; i < 50; i++) await fn();
  const start = performance.now();
  const until = start + ms;
  let n = 0;
  while (n < maxIterations && performance.now() < until) {
    // Batches of 10 keep the clock reads out of the figure.
    for (let i = 0; i < 10; i++) await fn();
    n += 10;
  }
  return ((performance.now() - start) * 1000) / n;
}

function syncTime(fn, { ms, maxIterations = 200_000 }) {
  for (let i = 0; i < 50; i++) fn();
  const start = performance.now();
  const until = start + ms;
  let n = 0;
  while (n < maxIterations && performance.now() < until) {
    for (let i = 0; i < 10; i++) fn();
    n += 10;
  }
  return ((performance.now() - start) * 1000) / n;
}

/** Signature-check costs; every path must accept the assertion or the figures mean nothing. */
export async function signatureMicro({ ms = 1000 } = {}) {
  const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
  const challenge = Buffer.alloc(32, 9).toString('base64url');
  const assertion = authenticator.assert(challenge); // signCount 1
  const coseB64Url = Buffer.from(authenticator.cose).toString('base64url');
  const authData = Buffer.from(assertion.response.authenticatorData, 'base64url');
  const clientData = Buffer.from(assertion.response.clientDataJSON, 'base64url');
  const signed = Buffer.concat([authData, createHash('sha256').update(clientData).digest()]);
  const signature = Buffer.from(assertion.response.signature, 'base64url');
  const cachedKey = { key: authenticator.publicKey, dsaEncoding: 'der' };

  const libraryOptions = {
    response: assertion,
    expectedChallenge: challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    credential: { id: authenticator.id, publicKey: new Uint8Array(authenticator.cose), counter: 0 },
    requireUserVerification: true,
  };
  const keys = new PublicKeyCache();
  const domainInput = {
    response: assertion,
    credential: {
      credentialId: authenticator.id,
      publicKeyB64Url: coseB64Url,
      signCount: 0,
      backupEligible: false,
    },
    expect: {
      rpId: RP_ID,
      allowedOrigins: [ORIGIN],
      expectedChallengeB64Url: challenge,
      requireUserVerification: true,
      allowCrossOrigin: false,
      allowedTopOrigins: [],
      allowedAlgorithms: undefined,
      counterRule: 'reject-regression',
    },
  };

  if (!verify('sha256', signed, cachedKey, signature)) throw new Error('raw verify rejected the assertion');
  if (!(await verifyAuthenticationResponse(libraryOptions)).verified)
    throw new Error('library rejected the assertion');
  const verdict = verifyAssertion({ keys }, domainInput);
  if (!verdict.ok)
    throw new Error(`domain verifier rejected the assertion: ${verdict.reason} ${verdict.detail}`);
  if (!importCoseKey(coseB64Url).ok) throw new Error('importCoseKey failed');

  const ed = generateKeyPairSync('ed25519').privateKey;
  const receiptText = Buffer.alloc(1500, 'r'); // a canonical receipt is ~1.5 kB

  return {
    rawVerifyUs: syncTime(() => verify('sha256', signed, cachedKey, signature), { ms }),
    libraryUs: await time(() => verifyAuthenticationResponse(libraryOptions), { ms }),
    domainCachedUs: syncTime(() => verifyAssertion({ keys }, domainInput), { ms }),
    domainUncachedUs: syncTime(() => verifyAssertion({ keys: new PublicKeyCache() }, domainInput), { ms }),
    keyImportUs: syncTime(() => importCoseKey(coseB64Url), { ms }),
    receiptSignUs: syncTime(() => sign(null, receiptText, ed), { ms: ms / 2 }),
  };
}

/** What one durable commit costs on the disk under `dir`: raw fdatasync and SQLite WAL commits. */
export function durabilityMicro({ dir = tmpdir(), ms = 1000 } = {}) {
  const work = mkdtempSync(join(dir, 'presence-bench-fsync-'));
  try {
    const fd = openSync(join(work, 'f'), 'w');
    const page = Buffer.alloc(4096, 1);
    let offset = 0;
    const fdatasyncUs = syncTime(
      () => {
        writeSync(fd, page, 0, page.length, (offset = (offset + 4096) % (1 << 22)));
        fdatasyncSync(fd);
      },
      { ms, maxIterations: 5000 },
    );
    closeSync(fd);
    const sqliteCommitUs = {};
    for (const mode of ['FULL', 'NORMAL']) {
      const db = new Database(join(work, `${mode}.sqlite`));
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${mode}`);
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO t (payload) VALUES (?)');
      // One small transaction with four inserts: the shape of a verification's settle.
      const commit = db.transaction(() => {
        for (let i = 0; i < 4; i++) insert.run('x'.repeat(400));
      });
      sqliteCommitUs[mode] = syncTime(commit, { ms, maxIterations: 20_000 });
      db.close();
    }
    return {
      fdatasyncUs,
      sqliteFullCommitUs: sqliteCommitUs.FULL,
      sqliteNormalCommitUs: sqliteCommitUs.NORMAL,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { ms: { type: 'string', default: '1000' } } });
  const ms = Number(values.ms);
  console.log(await signatureMicro({ ms }));
  console.log(durabilityMicro({ ms }));
}
