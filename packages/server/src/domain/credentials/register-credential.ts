import type { Credential, RegisterCredentialBody } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { CredentialRecord, RegistrationRecord } from './ports.js';
import { UniqueViolation, type StoreTx } from '../ports.js';
import { verifyRegistration } from '../webauthn/verify-registration.js';
import { recordEvent } from '../events/record-event.js';
import { toCredential } from './to-credential.js';

/**
 * Finishes an enrollment: the registration response is verified against the policy version
 * the options were made under, then the credential, its evidence and the
 * `credential.registered` event commit together. A registration id is single-use.
 */
export async function registerCredential(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  tenantId: string,
  input: RegisterCredentialBody,
  /** More writes that must commit with the credential or not at all (an enrollment link's use). */
  alsoInTransaction?: (tx: StoreTx) => Promise<void>,
): Promise<Credential> {
  const registration = await deps.store.registrations.get(tenantId, input.registrationId);
  if (!registration)
    throw new DomainError('not_found', 'the registration was not found', [
      { field: '/registrationId', message: 'unknown registration' },
    ]);
  const now = deps.clock.now();
  if (registration.usedAt !== null || registration.expiresAt <= now) {
    throw new DomainError(
      'registration_expired',
      'the registration has expired or was already used; request new options',
    );
  }
  const policy = await deps.store.policies.get(tenantId, registration.policyId);
  if (!policy) throw new DomainError('not_found', 'the policy of this registration is gone');
  const rules = policy.rules;
  const result = await verifyRegistration({
    response: input.credential,
    expect: {
      rpId: rules.rpId,
      allowedOrigins: rules.allowedOrigins,
      expectedChallengeB64Url: registration.challengeB64Url,
      requireUserVerification: true,
      allowedAlgorithms: rules.allowedAlgorithms,
      allowedFormats: rules.attestation.allowedFormats,
      aaguidAllowlist: rules.attestation.aaguidAllowlist,
    },
  });
  if (!result.ok) {
    await deps.store.registrations.consume(tenantId, registration.id, now);
    throw new DomainError('registration_rejected', `${result.reason}: ${result.detail}`, [
      { field: '/credential', message: result.detail },
    ]);
  }
  const credential: CredentialRecord = {
    id: newId(deps, 'cred'),
    tenantId,
    credentialId: result.credentialId,
    subject: registration.subject,
    publicKeyB64Url: result.publicKeyB64Url,
    algorithm: result.algorithm,
    signCount: result.signCount,
    aaguid: result.aaguid,
    transports: result.transports,
    backupEligible: result.backupEligible,
    backedUp: result.backedUp,
    attestationFormat: result.attestationFormat,
    attestationObjectB64Url: result.attestationObjectB64Url,
    clientDataJSONB64Url: result.clientDataJSONB64Url,
    registrationId: registration.id,
    policyId: policy.id,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  await commitCredential(deps, registration, credential, alsoInTransaction);
  return toCredential(credential);
}

async function commitCredential(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  registration: RegistrationRecord,
  credential: CredentialRecord,
  alsoInTransaction?: (tx: StoreTx) => Promise<void>,
) {
  try {
    await deps.store.transaction(async (tx) => {
      if (!(await tx.registrations.consume(registration.tenantId, registration.id, credential.createdAt))) {
        throw new DomainError('registration_expired', 'the registration was already used');
      }
      await alsoInTransaction?.(tx);
      await tx.credentials.insert(credential);
      await recordEvent(deps, tx, credential.tenantId, 'credential.registered', {
        credential: toCredential(credential),
      });
    });
  } catch (error) {
    if (error instanceof UniqueViolation) {
      throw new DomainError('conflict', 'this authenticator credential is already enrolled', [], {
        cause: error,
      });
    }
    throw error;
  }
}
