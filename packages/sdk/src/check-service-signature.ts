import { createPublicKey, verify } from 'node:crypto';
import type { ServiceKey } from '#contract';
import { fail, pass, type ReceiptCheck, type SignedReceiptInput } from './receipt-report.js';

/**
 * The service signature of signed evidence (receipt or approval set): Ed25519 over the canonical
 * bytes with the key the record names, which must be valid at the evidence's date.
 */
export function checkServiceSignature(
  message: Buffer,
  datedAt: string,
  sig: SignedReceiptInput['signature'],
  keys: readonly ServiceKey[],
): { serviceSignature: ReceiptCheck; serviceKeyValid?: ReceiptCheck } {
  if (
    !sig ||
    typeof sig.kid !== 'string' ||
    typeof sig.signatureB64Url !== 'string' ||
    sig.alg !== 'Ed25519'
  ) {
    return { serviceSignature: fail('no Ed25519 signature record {alg, kid, signatureB64Url} was given') };
  }
  const key = keys.find((k) => k.kid === sig.kid && k.use !== 'log');
  if (!key) return { serviceSignature: fail(`key ${sig.kid} is not among the trusted service keys`) };
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKeyB64Url },
    format: 'jwk',
  });
  const ok = verify(null, message, publicKey, Buffer.from(sig.signatureB64Url, 'base64url'));
  const at = Date.parse(datedAt);
  const inWindow =
    at >= Date.parse(key.notBefore) && (key.notAfter === null || at <= Date.parse(key.notAfter));
  return {
    serviceSignature: ok
      ? pass(`signed by ${key.kid}`)
      : fail(`the signature does not verify with ${key.kid}`),
    serviceKeyValid: inWindow
      ? pass(`dated within ${key.kid}'s validity`)
      : fail(`the date is outside ${key.kid}'s validity`),
  };
}
