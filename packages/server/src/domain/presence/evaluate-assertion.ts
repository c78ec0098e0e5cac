import type { AuthenticationResponseJSON, Denial } from '@presence/contract';
import type { Static } from '@sinclair/typebox';
import type { Deps } from '../deps.js';
import { decodeBase64UrlLenient } from '../encoding.js';
import { userHandleFor } from '../credentials/user-handle.js';
import type { ChallengeRecord } from './ports.js';
import type { CredentialInUse } from '../credentials/ports.js';
import type { PolicyRecord } from '../policy/ports.js';
import { verifyAssertion, type VerifiedAssertion } from '../webauthn/verify-assertion.js';

type Assertion = Static<typeof AuthenticationResponseJSON>;

export type Evaluation =
  | { verified: true; credential: CredentialInUse; policy: PolicyRecord; assertion: VerifiedAssertion }
  | { verified: false; decision: Denial; reason: string; credential?: CredentialInUse | undefined };

function deny(decision: Denial, reason: string, credential?: CredentialInUse): Evaluation {
  return { verified: false, decision, reason, credential };
}

/** The WebAuthn credential id an assertion names (rawId, canonical base64url); null when malformed. */
export function presentedCredentialId(assertion: Assertion): string | null {
  const rawId = decodeBase64UrlLenient(assertion.rawId);
  return rawId === null || rawId.length === 0 ? null : rawId.toString('base64url');
}

/** What the caller has read for the evaluation: the challenge's policy version, and the credential
 * enrolled under the presented id (undefined when either is not there). */
export interface EvaluationInputs {
  policy: PolicyRecord | undefined;
  credential: CredentialInUse | undefined;
}

/**
 * Everything that decides a presence check, before anything is written: challenge freshness,
 * which credential signed, whether it may sign for this challenge, and the WebAuthn checks.
 */
export function evaluateAssertion(
  deps: Pick<Deps, 'publicKeys'>,
  challenge: ChallengeRecord,
  assertion: Assertion,
  now: number,
  { policy, credential }: EvaluationInputs,
): Evaluation {
  if (challenge.expiresAt <= now)
    return deny('CHALLENGE_EXPIRED', 'the challenge expired before it was used');
  if (!policy) return deny('CHALLENGE_NOT_FOUND', 'the policy of this challenge is gone');
  if (presentedCredentialId(assertion) === null) return deny('ASSERTION_MALFORMED', 'rawId is not base64url');
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
  credential: CredentialInUse,
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
