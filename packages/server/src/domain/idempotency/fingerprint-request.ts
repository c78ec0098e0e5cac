import { canonicalJson, sha256Hex } from '../encoding.js';

export interface FingerprintInput {
  method: string;
  /** The route pattern, not the raw URL: `/v1/keys/:keyId/rotate`. */
  route: string;
  /** The API key making the request: a stored response is replayed only to the key that caused it. */
  apiKeyId: string;
  params: unknown;
  body: unknown;
}

/**
 * What "the same request" means for an Idempotency-Key: SHA-256 over the RFC 8785 bytes of
 * method, route, API key, path parameters and the validated JSON body. Member order and
 * whitespace do not matter; any value does.
 */
export function fingerprintRequest(input: FingerprintInput): string {
  return sha256Hex(
    canonicalJson([input.method, input.route, input.apiKeyId, input.params ?? null, input.body ?? null]),
  );
}
