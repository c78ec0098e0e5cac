/**
 * FROZEN: the verify path as it was before the hot path (issue 10), kept verbatim (imports aside) so
 * that verify-presence.property.test.ts can check that the lean path decides exactly as it did.
 * Do not change it to follow the service; it is the reference.
 */
import type { AuthenticationResponseJSON, Denial } from '@presence/contract';
import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../src/domain/deps.js';
import { decodeBase64UrlLenient } from '../../src/domain/encoding.js';
import { userHandleFor } from '../../src/domain/credentials/user-handle.js';
import type { ChallengeRecord } from '../../src/domain/presence/ports.js';
import type { CredentialRecord } from '../../src/domain/credentials/ports.js';
import type { PolicyRecord } from '../../src/domain/policy/ports.js';
import { verifyAssertion, type VerifiedAssertion } from '../../src/domain/webauthn/verify-assertion.js';

type Assertion = Static<typeof AuthenticationResponseJSON>;

export type PreviousEvaluation =
  | { verified: true; credential: CredentialRecord; policy: PolicyRecord; assertion: VerifiedAssertion }
  | { verified: false; decision: Denial; reason: string; credential?: CredentialRecord | undefined };

function deny(decision: Denial, reason: string, credential?: CredentialRecord): PreviousEvaluation {
  return { verified: false, decision, reason, credential };
}

/**
 * Everything that decides a presence check, before anything is written: challenge freshness,
 * which credential signed, whether it may sign for this challenge, and the WebAuthn checks.
 */
export async function previousEvaluateAssertion(
  deps: Pick<Deps, 'store' | 'publicKeys'>,
  challenge: ChallengeRecord,
  assertion: Assertion,
  now: number,
): Promise<PreviousEvaluation> {
  if (challenge.expiresAt <= now)
    return deny('CHALLENGE_EXPIRED', 'the challenge expired before it was used');
  const policy = await deps.store.policies.get(challenge.tenantId, challenge.policyId);
  if (!policy) return deny('CHALLENGE_NOT_FOUND', 'the policy of this challenge is gone');
  const rawId = decodeBase64UrlLenient(assertion.rawId);
  if (rawId === null || rawId.length === 0) return deny('ASSERTION_MALFORMED', 'rawId is not base64url');
  const credentialId = rawId.toString('base64url');
  const credential = await deps.store.credentials.getByCredentialId(challenge.tenantId, credentialId);
  if (!credential) return deny('CREDENTIAL_NOT_FOUND', 'no enrolled credential has this id');
  if (credential.revokedAt !== null)
    return deny('CREDENTIAL_REVOKED', 'the credential was revoked', credential);
  const notAllowed = checkAllowed(challenge, credential, assertion);
  if (notAllowed) return deny('CREDENTIAL_NOT_ALLOWED', notAllowed, credential);
  const rules = policy.rules;
  const outcome = verifyAssertion(
    { keys: deps.publicKeys },
    {
      response: assertion,
      credential: {
        credentialId: credential.credentialId,
        publicKeyB64Url: credential.publicKeyB64Url,
        signCount: credential.signCount,
        backupEligible: credential.backupEligible,
      },
      expect: {
        rpId: rules.rpId,
        allowedOrigins: rules.allowedOrigins,
        expectedChallengeB64Url: challenge.challengeB64Url,
        requireUserVerification: true,
        allowCrossOrigin: rules.allowCrossOrigin,
        allowedTopOrigins: rules.allowedTopOrigins,
        allowedAlgorithms: rules.allowedAlgorithms,
        counterRule: rules.counter === 'ignore' ? 'ignore' : 'reject-regression',
      },
    },
  );
  if (!outcome.ok) return deny(outcome.reason, outcome.detail, credential);
  return { verified: true, credential, policy, assertion: outcome };
}

/** WebAuthn §7.2 steps 5–6: the credential must be allowed and belong to the user handle's owner. */
function checkAllowed(
  challenge: ChallengeRecord,
  credential: CredentialRecord,
  assertion: Assertion,
): string | undefined {
  if (challenge.subject !== null && credential.subject !== challenge.subject) {
    return 'the credential belongs to another subject than the challenge names';
  }
  if (
    challenge.allowCredentialIds.length > 0 &&
    !challenge.allowCredentialIds.includes(credential.credentialId)
  ) {
    return 'the credential was not in allowCredentials of this challenge';
  }
  const userHandle = assertion.response.userHandle;
  if (userHandle !== undefined && userHandle !== null && userHandle !== '') {
    const expected = userHandleFor(credential.tenantId, credential.subject);
    const presented = decodeBase64UrlLenient(userHandle);
    if (presented === null || !presented.equals(expected))
      return 'the user handle does not belong to the credential owner';
  }
  return undefined;
}
