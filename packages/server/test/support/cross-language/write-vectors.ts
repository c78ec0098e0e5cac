/**
 * The cross-language vectors (conformance/cross-language/, docs/executor-guards.md):
 * canonicalization cases and action hashes computed by the SDK's canonicalJson, real receipts made
 * by the real service's verify path (a software authenticator per algorithm of
 * SUPPORTED_ALGORITHMS, all allowed by the tenant's policy), the keys.json it serves, approval sets
 * assembled from real receipts and signed with its key, webhook deliveries signed by its own code,
 * and one tampering per check. ../make-cross-language-vectors.ts writes them into the repository;
 * test/cross-language-drift.test.ts writes them into a temporary directory and compares.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { SUPPORTED_ALGORITHMS } from '@presence/contract';
import type { SoftwareKeyAlgorithm } from '@presence/sdk/testing';
import { newId } from '../../../src/domain/ids.js';
import { newWebhookSecret } from '../../../src/domain/webhooks/webhook-secret.js';
import { approvedReceipt } from './approval-evidence.js';
import { approvalSetVectors } from './approval-set-vectors.js';
import { actionHashVectors, canonicalVectors } from './canonical-cases.js';
import { flagVectors, receiptVectors, type ReceiptVector } from './receipt-vectors.js';
import { vectorSigner, type SignedEvidence } from './vector-signer.js';
import { webhookVectors } from './webhook-vectors.js';
import { SoftAuthenticator } from '../soft-authenticator.js';
import { startVectorsService, type VectorsService } from './vectors-service.js';

const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';

const ACTION = {
  type: 'payout',
  amount: '250.00',
  currency: 'EUR',
  iban: 'DE89370400440532013000',
  payoutId: 'po_7731',
};
const OTHER_ACTION = { ...ACTION, amount: '2500.00' };

async function receiptFor(
  s: VectorsService,
  subject: string,
  alg: SoftwareKeyAlgorithm,
  authenticator: SoftAuthenticator = new SoftAuthenticator(RP_ID, ORIGIN, alg),
): Promise<SignedEvidence> {
  const action = ACTION;
  const options = await s.request('POST', '/v1/presence/credentials/options', { subject });
  const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
  const created = await s.request('POST', '/v1/presence/credentials', {
    registrationId: options.json.registrationId,
    credential,
  });
  if (created.status !== 201) throw new Error(`enroll ${alg}: ${JSON.stringify(created.json)}`);
  return approvedReceipt(s, authenticator, subject, action);
}

/** One credential per algorithm the service accepts; names stay as the first vectors had them. */
const CREDENTIALS: Record<number, { alg: SoftwareKeyAlgorithm; name: string }> = {
  [-7]: { alg: 'ES256', name: 'ES256 (P-256) credential' },
  [-8]: { alg: 'EdDSA', name: 'EdDSA (Ed25519) credential' },
  [-257]: { alg: 'RS256', name: 'RS256 (RSA 2048) credential' },
  [-35]: { alg: 'ES384', name: 'ES384 (P-384) credential' },
  [-36]: { alg: 'ES512', name: 'ES512 (P-521) credential' },
  [-258]: { alg: 'RS384', name: 'RS384 (RSA 2048) credential' },
  [-259]: { alg: 'RS512', name: 'RS512 (RSA 2048) credential' },
  [-37]: { alg: 'PS256', name: 'PS256 (RSA-PSS 2048) credential' },
  [-38]: { alg: 'PS384', name: 'PS384 (RSA-PSS 2048) credential' },
  [-39]: { alg: 'PS512', name: 'PS512 (RSA-PSS 2048) credential' },
};

async function realReceipts(s: VectorsService, eddsa: SoftAuthenticator) {
  const allowed = await s.request('PUT', '/v1/policy', {
    rpId: RP_ID,
    allowedOrigins: [ORIGIN],
    allowedAlgorithms: [...SUPPORTED_ALGORITHMS],
  });
  if (allowed.status !== 200) throw new Error(`policy: ${JSON.stringify(allowed.json)}`);
  const real = [];
  for (const cose of [-7, -8, -257, ...SUPPORTED_ALGORITHMS.filter((a) => ![-7, -8, -257].includes(a))]) {
    const credential = CREDENTIALS[cose];
    if (credential === undefined) throw new Error(`no software credential for COSE ${cose}`);
    const { alg, name } = credential;
    const subject = `executor-${alg.toLowerCase()}`;
    real.push({ name, signed: await receiptFor(s, subject, alg, alg === 'EdDSA' ? eddsa : undefined) });
  }
  return real;
}

/** Writes every vector file into `out` (a directory URL ending in /), replacing what is there. */
export async function writeCrossLanguageVectors(out: URL): Promise<void> {
  mkdirSync(out, { recursive: true });
  const write = (name: string, value: unknown) =>
    writeFileSync(new URL(name, out), `${JSON.stringify(value, null, 2)}\n`);
  const s = await startVectorsService(RP_ID, ORIGIN);
  try {
    const signer = vectorSigner(s.composed.deps.signer);
    write('canonicalization.json', canonicalVectors());
    write('action-hashes.json', actionHashVectors());
    const eddsa = new SoftAuthenticator(RP_ID, ORIGIN, 'EdDSA');
    const real = await realReceipts(s, eddsa);
    const keys = (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json as {
      keys: Record<string, unknown>[];
    };
    const receiptKeys = keys.keys.filter((k) => k.use !== 'log');
    write('keys.json', keys);
    write('keys-rotated.json', {
      keys: receiptKeys.map((k) => ({ ...k, status: 'retired', notAfter: '2099-01-01T00:00:00.000Z' })),
    });
    write('keys-not-yet-valid.json', {
      keys: receiptKeys.map((k) => ({ ...k, notBefore: '2099-01-01T00:00:00.000Z' })),
    });
    const other = await startVectorsService(RP_ID, ORIGIN);
    try {
      write(
        'keys-other.json',
        (await other.request('GET', '/.well-known/presence/keys.json', undefined, '')).json,
      );
    } finally {
      await other.close();
    }
    const receipts: ReceiptVector[] = [
      ...receiptVectors(signer, real, ACTION, OTHER_ACTION),
      ...flagVectors(signer, real[1]!.signed, eddsa),
    ];
    write('receipts.json', receipts);
    const subjects = ['alice', 'alice2', 'bob', 'carol', 'dave', 'ivan'] as const;
    const approvalReceipts = {} as Record<(typeof subjects)[number], SignedEvidence>;
    for (const subject of subjects) {
      approvalReceipts[subject] = await receiptFor(s, subject === 'alice2' ? 'alice' : subject, 'ES256');
    }
    const approvalSets = approvalSetVectors({
      signer,
      approvalId: newId(s.composed.deps, 'ten').replace(/^ten_/, 'apr_'),
      tenantId: s.tenantId,
      action: ACTION,
      otherAction: OTHER_ACTION,
      receipts: approvalReceipts,
    });
    write('approval-sets.json', approvalSets);
    write('approval-set.json', approvalSets[0]!.evidence);
    write('receipt.json', real[0]!.signed);
    const secrets: [string, string] = [newWebhookSecret(s.composed.deps), newWebhookSecret(s.composed.deps)];
    const data = {
      receiptId: (real[0]!.signed.receipt as { receiptId: string }).receiptId,
      memo: 'Zahlung für Müller 😀',
    };
    write('webhooks.json', webhookVectors(secrets, data, Date.now()));
    write('action.json', ACTION);
    write('other-action.json', OTHER_ACTION);
  } finally {
    await s.close();
  }
}
