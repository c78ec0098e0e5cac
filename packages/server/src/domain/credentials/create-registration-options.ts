import type { RegistrationOptionsBody } from '@presence/contract';
import { generateRegistrationOptions } from '@simplewebauthn/server';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { userHandleFor } from './user-handle.js';
import { newId } from '../ids.js';
import type { RegistrationRecord } from './ports.js';
import { currentPolicy } from '../policy/get-policy.js';

/**
 * Starts enrolling an authenticator for an opaque subject. The WebAuthn user handle is derived
 * from tenant and subject, so it is stable for one subject and reveals nothing about it.
 */
export async function createRegistrationOptions(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  tenantId: string,
  input: RegistrationOptionsBody & {
    /** The account name authenticators show in their passkey lists (default: the subject). */
    userName?: string | undefined;
  },
) {
  const policy = await currentPolicy(deps, tenantId);
  const rules = policy.rules;
  const existing = await deps.store.credentials.list(
    tenantId,
    { subject: input.subject, includeRevoked: false },
    { limit: 100 },
  );
  const challenge = deps.random.bytes(32);
  const userId = userHandleFor(tenantId, input.subject);
  const publicKey = await generateRegistrationOptions({
    rpName: rules.rpName,
    rpID: rules.rpId,
    userName: input.userName ?? input.subject,
    userDisplayName: input.displayName ?? input.subject,
    userID: new Uint8Array(userId),
    challenge: new Uint8Array(challenge),
    timeout: rules.registrationTtlSeconds * 1000,
    attestationType: rules.attestation.conveyance === 'direct' ? 'direct' : 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: rules.allowedAlgorithms,
  });
  const now = deps.clock.now();
  const record: RegistrationRecord = {
    id: newId(deps, 'reg'),
    tenantId,
    subject: input.subject,
    challengeB64Url: publicKey.challenge,
    userIdB64Url: publicKey.user.id,
    policyId: policy.id,
    createdAt: now,
    expiresAt: now + rules.registrationTtlSeconds * 1000,
    usedAt: null,
  };
  // In a transaction so an Idempotency-Key commits with it (http/plugins/idempotency.ts).
  await deps.store.transaction((tx) => tx.registrations.insert(record));
  return { registrationId: record.id, expiresAt: toIso(record.expiresAt), publicKey };
}
