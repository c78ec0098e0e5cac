/**
 * Writes the cross-language vectors into conformance/cross-language/ (docs/executor-guards.md):
 * canonicalization cases and action hashes computed by the SDK's canonicalJson, real receipts made
 * by the real service's verify path (software authenticators: ES256, EdDSA, RS256), the keys.json
 * it serves, approval sets assembled from real receipts and signed with its key, webhook
 * deliveries signed by its own code, and one tampering per check. Run after `npm run build`:
 *   npx vite-node packages/server/test/support/make-cross-language-vectors.ts
 * Re-running replaces every file (new keys, new receipts); commit the result as a whole.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { canonicalJson } from '@presence/sdk';
import { computeActionHashSync } from '@presence/sdk/node';
import type { SoftwareKeyAlgorithm } from '@presence/sdk/testing';
import { newId } from '../../src/domain/ids.js';
import { newWebhookSecret } from '../../src/domain/webhooks/webhook-secret.js';
import { approvedReceipt } from './cross-language/approval-evidence.js';
import { approvalSetVectors } from './cross-language/approval-set-vectors.js';
import { ACTIONS, CANONICAL_ERRORS, CANONICAL_INPUTS } from './cross-language/canonical-cases.js';
import { flagVectors, receiptVectors, type ReceiptVector } from './cross-language/receipt-vectors.js';
import { vectorSigner, type SignedEvidence } from './cross-language/vector-signer.js';
import { webhookVectors } from './cross-language/webhook-vectors.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import { startVectorsService, type VectorsService } from './cross-language/vectors-service.js';

const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';

const OUT = new URL('../../../../conformance/cross-language/', import.meta.url);
const write = (name: string, value: unknown) =>
  writeFileSync(new URL(name, OUT), `${JSON.stringify(value, null, 2)}\n`);

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
  authenticator = new SoftAuthenticator(RP_ID, ORIGIN, alg),
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

function canonicalVectors() {
  const sha = (text: string) => computeActionHashSync(JSON.parse(text));
  return {
    cases: CANONICAL_INPUTS.map(({ name, inputText }) => {
      const canonical = canonicalJson(JSON.parse(inputText));
      return { name, inputText, canonical, sha256Hex: sha(inputText) };
    }),
    errors: CANONICAL_ERRORS,
  };
}

const s = await startVectorsService(RP_ID, ORIGIN);
try {
  mkdirSync(OUT, { recursive: true });
  const signer = vectorSigner(s.composed.deps.signer);
  write('canonicalization.json', canonicalVectors());
  write(
    'action-hashes.json',
    ACTIONS.map(({ name, action }) => ({
      name,
      action,
      canonical: canonicalJson(action),
      actionHashHex: computeActionHashSync(action),
    })),
  );
  const eddsa = new SoftAuthenticator(RP_ID, ORIGIN, 'EdDSA');
  const real = [
    { name: 'ES256 (P-256) credential', signed: await receiptFor(s, 'executor-es256', 'ES256') },
    { name: 'EdDSA (Ed25519) credential', signed: await receiptFor(s, 'executor-eddsa', 'EdDSA', eddsa) },
    { name: 'RS256 (RSA 2048) credential', signed: await receiptFor(s, 'executor-rs256', 'RS256') },
  ];
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
  console.log(`wrote the cross-language vectors to ${OUT.pathname}`);
} finally {
  await s.close();
}
