import { RECEIPT_V1, type ServiceKey } from '#contract';
import { fail, report, type ReceiptReport, type SignedReceiptInput } from './receipt-report.js';
import { verifyReceiptV1 } from './receipt-v1/verify-receipt-v1.js';
import { serviceKeysOf } from './usage-error.js';

export type { ReceiptCheck, ReceiptReport, SignedReceiptInput } from './receipt-report.js';

type ReceiptVerifier = (input: SignedReceiptInput, options: { keys: readonly ServiceKey[] }) => ReceiptReport;

/**
 * One frozen verifier per receipt version (ADR 0008). A new version adds its own module and a line
 * here; the old ones stay as they are, so every receipt ever issued keeps verifying.
 */
const VERIFIERS: ReadonlyMap<string, ReceiptVerifier> = new Map([[RECEIPT_V1, verifyReceiptV1]]);

/** The receipt versions this verifier knows. */
export const RECEIPT_VERSIONS: readonly string[] = [...VERIFIERS.keys()];

/** The service keys: /.well-known/presence/keys.json as served (`{ keys }`) or its `keys` array. */
export type ServiceKeysInput = readonly ServiceKey[] | { keys: readonly ServiceKey[] };

/**
 * Checks one receipt offline, trusting nothing but the service public keys you pass (pinned, or
 * /.well-known/presence/keys.json as served, or its `keys` array), with the rules of the receipt's own `version`: for
 * v1, hash, service signature, key validity at issue time, challenge recomputed from action hash
 * and nonce, client data, rpId hash, flags, and the authenticator's signature with the credential
 * key the receipt carries. A version this build does not know fails the `schema` check.
 */
export function verifyReceipt(input: SignedReceiptInput, options: { keys: ServiceKeysInput }): ReceiptReport {
  const keys = serviceKeysOf(options?.keys, 'verifyReceipt options.keys');
  const version: unknown = (input.receipt as { version?: unknown } | null | undefined)?.version;
  const verifier = typeof version === 'string' ? VERIFIERS.get(version) : undefined;
  if (verifier) return verifier(input, { keys });
  const named =
    typeof version === 'string' ? JSON.stringify(version.slice(0, 64)) : 'a receipt without a version';
  return report(
    {
      schema: fail(
        `${named} is not a receipt version this verifier knows (${RECEIPT_VERSIONS.join(', ')}); a newer @presence/sdk may`,
      ),
    },
    null,
    null,
  );
}
