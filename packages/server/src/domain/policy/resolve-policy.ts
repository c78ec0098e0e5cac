import type { PolicyBody, PolicyRules } from '@presence/contract';
import { SUPPORTED_ALGORITHMS } from '@presence/contract';

/** ES256, EdDSA, RS256: what platform and roaming authenticators produce today. */
export const DEFAULT_ALGORITHMS = [-7, -8, -257];

/**
 * Fills every default so a stored policy version says exactly what was enforced. User
 * verification is not a setting: it is always required.
 */
export function resolvePolicy(body: PolicyBody): PolicyRules {
  const algorithms = body.allowedAlgorithms ?? DEFAULT_ALGORITHMS;
  return {
    rpId: body.rpId,
    rpName: body.rpName ?? body.rpId,
    allowedOrigins: [...body.allowedOrigins],
    allowCrossOrigin: body.allowCrossOrigin ?? false,
    allowedTopOrigins: [...(body.allowedTopOrigins ?? [])],
    // Only when set, so a policy without related origins keeps the shape (and hash) it always had.
    ...(body.relatedOrigins?.length ? { relatedOrigins: [...body.relatedOrigins] } : {}),
    challengeTtlSeconds: body.challengeTtlSeconds ?? 120,
    registrationTtlSeconds: body.registrationTtlSeconds ?? 300,
    userVerification: 'required',
    allowedAlgorithms: algorithms.filter((a) => (SUPPORTED_ALGORITHMS as readonly number[]).includes(a)),
    attestation: {
      conveyance: body.attestation?.conveyance ?? 'none',
      allowedFormats: [...(body.attestation?.allowedFormats ?? [])],
      aaguidAllowlist: [...(body.attestation?.aaguidAllowlist ?? [])],
    },
    counter: body.counter ?? 'reject-regression',
    // Only when on: versions with the rule off hash exactly as they did before it existed.
    ...(body.uniqueActions === true && { uniqueActions: true }),
  };
}
