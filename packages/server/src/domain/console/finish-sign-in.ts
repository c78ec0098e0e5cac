import type { VerifyBody } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { verifyPresence } from '../presence/verify-presence.js';
import {
  memberIdOfSubject,
  presenceRefused,
  SIGN_IN_ACTION_HASH_HEX,
  unknownConsolePasskey,
  type ConsoleSettings,
} from './console-settings.js';
import { createSession, type CreatedSession } from './create-session.js';
import type { MemberRecord } from './ports.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { asMember } from './record-audit.js';

/**
 * Verifies a sign-in assertion with the same gate as POST /v1/presence/verify; only
 * PRESENCE_VERIFIED for a passkey of a current member opens a session.
 */
export async function finishSignIn(
  deps: Deps,
  settings: ConsoleSettings,
  input: VerifyBody,
): Promise<{ member: MemberRecord; session: CreatedSession }> {
  const tenantId = settings.consoleTenantId;
  const challenge = await deps.store.challenges.get(tenantId, input.challengeId);
  if (!challenge || challenge.actionHashHex !== SIGN_IN_ACTION_HASH_HEX) {
    throw new DomainError('invalid_request', 'this is not a sign-in challenge; reload the page', [
      { field: '/challengeId', message: 'not a sign-in challenge' },
    ]);
  }
  const result = await verifyPresence(deps, tenantId, input);
  if (result.decision === 'CREDENTIAL_NOT_FOUND' || result.decision === 'CREDENTIAL_REVOKED') {
    throw unknownConsolePasskey(result.decision);
  }
  if (result.decision !== 'PRESENCE_VERIFIED') throw presenceRefused(result.decision, result.reason);
  const receipt = await deps.store.receipts.get(tenantId, result.receiptId!);
  const memberId = receipt && memberIdOfSubject(receipt.subject);
  const member = memberId === undefined ? undefined : await deps.store.console.members.getAnyTenant(memberId);
  if (!member || member.removedAt !== null) {
    throw new DomainError('forbidden', 'this passkey belongs to no current console member');
  }
  const receiptLink = { receiptId: result.receiptId!, receiptHashHex: result.receiptHashHex! };
  await deps.store.transaction((tx) =>
    recordAuditEvent(asMember(deps, member, { receipt: receiptLink }), tx, {
      tenantId: member.tenantId,
      action: 'member.signed_in',
      target: { type: 'member', id: member.id, name: member.displayName },
    }),
  );
  return { member, session: await createSession(deps, settings, member) };
}
