/**
 * The committed presence.receipt.v1 fixtures (ADR 0008) verify OFFLINE in this build: a real
 * receipt (Chromium's virtual authenticator, the real service, see fixtures/receipt-v1/README.md),
 * the keys.json served when it was issued, and a real export pack holding it. Every future build
 * must keep these passing; if one fails, the change broke old evidence, not the fixture.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServiceKey, SignedReceipt } from '#contract';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical-json.js';
import { verifyPack } from '../src/pack/verify-pack.js';
import { RECEIPT_VERSIONS, verifyReceipt } from '../src/verify-receipt.js';

const FIXTURES = new URL('./fixtures/receipt-v1/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, FIXTURES));
const signed = JSON.parse(read('signed-receipt.json').toString('utf8')) as SignedReceipt;
const keys = (JSON.parse(read('keys.json').toString('utf8')) as { keys: ServiceKey[] }).keys;
const V1_CHECKS = [
  'schema',
  'hash',
  'serviceSignature',
  'serviceKeyValid',
  'challengeBinding',
  'clientData',
  'rpIdHash',
  'flags',
  'webauthnSignature',
];

describe('the committed presence.receipt.v1 receipt', () => {
  it('passes every v1 check with the keys.json served when it was issued', () => {
    const report = verifyReceipt(signed, { keys });
    expect(report.valid, JSON.stringify(report.checks, null, 2)).toBe(true);
    expect(Object.keys(report.checks).sort()).toEqual([...V1_CHECKS].sort());
    expect(report).toMatchObject({
      receiptId: signed.receipt.receiptId,
      receiptHashHex: signed.receiptHashHex,
    });
    expect(RECEIPT_VERSIONS).toContain('presence.receipt.v1');
  });

  it('hashes to receiptHashHex over its RFC 8785 bytes', () => {
    const hash = createHash('sha256').update(canonicalJson(signed.receipt)).digest('hex');
    expect(hash).toBe(signed.receiptHashHex);
  });

  it('still verifies after its key was rotated out (a later keys.json: the key retired, its window closed)', () => {
    const later = keys.map((k) => ({
      ...k,
      status: 'retired' as const,
      notAfter: '2099-01-01T00:00:00.000Z',
    }));
    expect(verifyReceipt(signed, { keys: later }).valid).toBe(true);
  });

  it('fails when any byte it was signed over changes, or the key is not trusted', () => {
    const altered = { ...signed, receipt: { ...signed.receipt, subject: `${signed.receipt.subject}x` } };
    expect(verifyReceipt(altered, { keys }).checks.hash?.ok).toBe(false);
    expect(verifyReceipt(signed, { keys: [] }).checks.serviceSignature?.ok).toBe(false);
    // A receipt-log key (use: "log") never vouches for a receipt, as in the Python and Go verifiers.
    const asLogKey = keys.map((k) => ({ ...k, use: 'log' }) as ServiceKey);
    expect(verifyReceipt(signed, { keys: asLogKey }).checks.serviceSignature).toMatchObject({ ok: false });
  });

  it('is refused under a version this build does not know, with a reason', () => {
    const future = { ...signed, receipt: { ...signed.receipt, version: 'presence.receipt.v9' } };
    const report = verifyReceipt(future as unknown as SignedReceipt, { keys });
    expect(report.valid).toBe(false);
    expect(report.checks.schema?.detail).toMatch(
      /"presence.receipt.v9" is not a receipt version this verifier knows/,
    );
  });

  it('is not v1 with a field added', () => {
    const grown = { ...signed, receipt: { ...signed.receipt, extra: true } };
    expect(verifyReceipt(grown as unknown as SignedReceipt, { keys }).checks.schema?.ok).toBe(false);
  });
});

describe('the committed v1 export pack', () => {
  it('verifies with the published keys and with the pinned PEM', async () => {
    const report = await verifyPack(new Uint8Array(read('pack.zip')), { keys });
    expect(report.valid, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true);
    expect(report.receipts).toBe(1);
    const pinned = await verifyPack(new Uint8Array(read('pack.zip')), {
      pinnedPublicKeyPem: keys[0]!.publicKeyPem,
    });
    expect(pinned.valid).toBe(true);
  });

  // The bin is the built SDK: npm test builds first; a bare vitest run without a build skips this case.
  const bin = fileURLToPath(new URL('../dist/bin/presence-verify.js', import.meta.url));
  it.skipIf(!existsSync(bin) && process.env['CI'] !== 'true')('verifies with the presence-verify bin', () => {
    const path = (name: string) => fileURLToPath(new URL(name, FIXTURES));
    const out = execFileSync(process.execPath, [bin, path('pack.zip'), '--keys', path('keys.json')], {
      encoding: 'utf8',
    });
    expect(out).toMatch(/^VERDICT: PASS .* all \d+ checks passed$/m);
  });
});
