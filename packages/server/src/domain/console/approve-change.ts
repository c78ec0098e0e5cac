import type { VerifyBody } from '@presence/contract';
import { computeActionHashSync } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { createChallenge, type ChallengeDeps } from '../presence/create-challenge.js';
import { verifyPresence } from '../presence/verify-presence.js';
import { memberSubject, presenceRefused, type ConsoleSettings } from './console-settings.js';
import type { MemberRecord } from './ports.js';

/**
 * A dangerous change, exactly: what it does, to what, in which tenant, asked by whom, and the state
 * before and after it as the member was shown them. Its action hash (RFC 8785 + SHA-256, the SDK's
 * computeActionHash) is what the member's passkey signs, so the receipt binds what was shown.
 */
export interface ConsoleChange {
  type: string;
  tenantId: string;
  tenantName: string;
  memberId: string;
  memberName: string;
  target: string;
  params: Record<string, unknown>;
  /** Plain JSON (null when the thing does not exist before, or no longer after); never a secret. */
  before: unknown;
  after: unknown;
}

/** The action of a change: what is hashed, signed, and shown on an approval's page. */
export function changeAction(change: ConsoleChange): Record<string, unknown> {
  return { ...change, service: 'presence-console' };
}

export function changeHashHex(change: ConsoleChange): string {
  return computeActionHashSync(changeAction(change));
}

/** Step 1: a presence challenge bound to the change, for the member's own console passkeys. */
export async function startApproval(
  deps: ChallengeDeps,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  member: MemberRecord,
  change: ConsoleChange,
) {
  return createChallenge(deps, settings.consoleTenantId, {
    actionHashHex: changeHashHex(change),
    subject: memberSubject(member.id),
    purpose: `console: ${change.type}`,
  });
}

/**
 * Step 2: the member's assertion for that challenge, through the same gate as the API. Returns
 * the receipt only on PRESENCE_VERIFIED; the caller executes the change only then.
 */
export async function approveChange(
  deps: Deps,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  member: MemberRecord,
  change: ConsoleChange,
  input: VerifyBody,
): Promise<{ receiptId: string; receiptHashHex: string }> {
  const challenge = await deps.store.challenges.get(settings.consoleTenantId, input.challengeId);
  if (
    !challenge ||
    challenge.actionHashHex !== changeHashHex(change) ||
    challenge.subject !== memberSubject(member.id)
  ) {
    throw new DomainError(
      'forbidden',
      'the passkey approval was given for a different change; nothing was changed',
    );
  }
  const result = await verifyPresence(deps, settings.consoleTenantId, input);
  if (result.decision !== 'PRESENCE_VERIFIED') throw presenceRefused(result.decision, result.reason);
  return { receiptId: result.receiptId!, receiptHashHex: result.receiptHashHex! };
}
