/**
 * The committed presence.receipt.v1 fixtures (ADR 0008) verify ONLINE in this build, on both
 * dialects: the fixture's evidence rows (tenant, policy, challenge, receipt, and the public half of
 * the key that signed it) are imported into a fresh store as a database of the build that issued
 * it would hold them, and POST /v1/presence/receipts/verify must answer valid with every check
 * passing, `stored` included. The offline side is packages/sdk/test/receipt-v1-fixtures.test.ts.
 */
import { readFileSync } from 'node:fs';
import type {
  PackReceiptLine,
  PolicyRules,
  PolicySnapshot,
  ServiceKey,
  SignedReceipt,
} from '@presence/contract';
import { beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../src/domain/api-keys/create-api-key.js';
import { OWNER_SCOPES } from '../src/domain/api-keys/check-grantable-scopes.js';
import type { Deps } from '../src/domain/deps.js';
import { canonicalJson } from '../src/domain/encoding.js';
import { unzipPack } from './support/export-pack.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const FIXTURES = new URL('../../sdk/test/fixtures/receipt-v1/', import.meta.url);
const signed = JSON.parse(readFileSync(new URL('signed-receipt.json', FIXTURES), 'utf8')) as SignedReceipt;
const keys = (JSON.parse(readFileSync(new URL('keys.json', FIXTURES), 'utf8')) as { keys: ServiceKey[] })
  .keys;
const pack = readFileSync(new URL('pack.zip', FIXTURES));

/** The rows an issuing build stored for the fixture receipt, rebuilt from the receipt and its pack. */
async function importFixture(deps: Deps): Promise<string> {
  const r = signed.receipt;
  const files = await unzipPack(pack);
  const policy = (JSON.parse(files.get('policy.snapshot.json')!.toString()) as PolicySnapshot).policies.find(
    (p) => p.policyId === r.policyId,
  )!;
  const line = JSON.parse(files.get('receipts.ndjson')!.toString().split('\n')[0]!) as PackReceiptLine;
  const key = keys.find((k) => k.kid === signed.signature.kid)!;
  const now = deps.clock.now();
  await deps.store.tenants.insert({
    id: r.tenantId,
    name: 'v1 fixture',
    createdAt: Date.parse(r.challengeCreatedAt),
  });
  await deps.store.policies.insert({
    id: policy.policyId,
    tenantId: r.tenantId,
    version: policy.version,
    rules: policy.rules as unknown as PolicyRules,
    hashHex: policy.hashHex,
    createdAt: Date.parse(policy.createdAt),
  });
  // Only the public half of the fixture key exists; it ends now, so this service never signs with it.
  await deps.store.signingKeys.insert({
    kid: key.kid,
    publicKeyB64Url: key.publicKeyB64Url,
    privateKeySealed: 'not available: public key of a committed fixture',
    createdAt: Date.parse(key.notBefore),
    notBefore: Date.parse(key.notBefore),
    notAfter: now,
    status: 'retired',
  });
  await deps.store.transaction(async (tx) => {
    await tx.challenges.insert({
      id: r.challengeId,
      tenantId: r.tenantId,
      actionHashHex: r.actionHashHex,
      subject: line.challenge.subject ?? null,
      purpose: r.purpose,
      nonceB64Url: r.challengeNonceB64Url,
      challengeB64Url: r.challengeB64Url,
      allowCredentialIds: [r.credentialId],
      policyId: r.policyId,
      createdAt: Date.parse(r.challengeCreatedAt),
      expiresAt: Date.parse(r.challengeExpiresAt),
      status: 'verified',
      usedAt: Date.parse(r.verifiedAt),
      decision: 'PRESENCE_VERIFIED',
      reason: null,
      receiptId: r.receiptId,
      credentialRef: r.credentialRef,
    });
    await tx.receipts.insert({
      id: r.receiptId,
      tenantId: r.tenantId,
      challengeId: r.challengeId,
      credentialRef: r.credentialRef,
      subject: r.subject,
      actionHashHex: r.actionHashHex,
      issuedAt: Date.parse(r.issuedAt),
      canonicalJson: canonicalJson(r),
      hashHex: signed.receiptHashHex,
      kid: signed.signature.kid,
      signatureB64Url: signed.signature.signatureB64Url,
    });
  });
  await deps.signer.refresh();
  return (await createApiKey(deps, r.tenantId, { name: 'auditor', scopes: ['receipts:read'] }, OWNER_SCOPES))
    .secret;
}

describeEachDialect('the committed v1 receipt online', (dialect) => {
  const s = useTestService(dialect);
  let apiKey = '';
  beforeAll(async () => {
    apiKey = await importFixture(s.composed.deps);
  });

  it('POST /v1/presence/receipts/verify accepts the receipt as served, every check passing', async () => {
    const res = await s.request('POST', '/v1/presence/receipts/verify', signed, apiKey);
    expect(res.status).toBe(200);
    expect(res.json.valid, JSON.stringify(res.json.checks)).toBe(true);
    expect(Object.keys(res.json.checks).sort()).toEqual(
      [
        'challengeBinding',
        'clientData',
        'flags',
        'hash',
        'rpIdHash',
        'schema',
        'serviceKeyValid',
        'serviceSignature',
        'stored',
        'webauthnSignature',
      ].sort(),
    );
  });

  it('accepts it by id and hash, and serves back the same bytes', async () => {
    const byId = await s.request(
      'POST',
      '/v1/presence/receipts/verify',
      { receiptId: signed.receipt.receiptId, receiptHashHex: signed.receiptHashHex },
      apiKey,
    );
    expect(byId.json.valid, JSON.stringify(byId.json.checks)).toBe(true);
    const served = await s.request(
      'GET',
      `/v1/presence/receipts/${signed.receipt.receiptId}`,
      undefined,
      apiKey,
    );
    expect(canonicalJson(served.json.receipt)).toBe(canonicalJson(signed.receipt));
    expect(served.json.signature).toEqual(signed.signature);
  });

  it('refuses the fixture with one byte of the signed receipt changed', async () => {
    const altered = { ...signed, receipt: { ...signed.receipt, purpose: 'altered' } };
    const res = await s.request('POST', '/v1/presence/receipts/verify', altered, apiKey);
    expect(res.json.valid).toBe(false);
    expect(res.json.checks.hash.ok).toBe(false);
  });
});
