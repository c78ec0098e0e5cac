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

/**
 * A stored policy version as this build reads it: every field the version has, as stored; a field
 * added to PolicyRules after it was written, at its default. Stored versions are immutable and read
 * forever, so a new rule must be optional in PolicyBody with a default that means what versions
 * written before it enforced (docs/storage.md#stored-forever-read-forever).
 */
export function readStoredRules(stored: PolicyRules): PolicyRules {
  const defaults = resolvePolicy({ rpId: stored.rpId, allowedOrigins: stored.allowedOrigins ?? [] });
  return withDefaults(defaults, stored);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withDefaults<T>(defaults: T, stored: unknown): T {
  if (!isPlainObject(defaults) || !isPlainObject(stored))
    return stored === undefined ? defaults : (stored as T);
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(defaults)) merged[key] = withDefaults(value, stored[key]);
  return merged as T;
}
