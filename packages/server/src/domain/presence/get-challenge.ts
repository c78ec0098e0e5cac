import type { ChallengeView } from '@presence/contract';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import { toIso } from '../encoding.js';
import type { ChallengeRecord } from './ports.js';

export async function getChallenge(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  challengeId: string,
): Promise<ChallengeView> {
  const c = await deps.store.challenges.get(tenantId, challengeId);
  if (!c) throw notFound('the challenge');
  return toChallengeView(c, deps.clock.now());
}

/** A pending challenge past its expiry reads as `expired` even before anyone tries it. */
export function toChallengeView(c: ChallengeRecord, now: number): ChallengeView {
  const status = c.status === 'pending' && c.expiresAt <= now ? 'expired' : c.status;
  const view: ChallengeView = {
    challengeId: c.id,
    actionHashHex: c.actionHashHex,
    status,
    createdAt: toIso(c.createdAt),
    expiresAt: toIso(c.expiresAt),
  };
  if (c.subject !== null) view.subject = c.subject;
  if (c.purpose !== null) view.purpose = c.purpose;
  if (c.usedAt !== null) view.usedAt = toIso(c.usedAt);
  if (c.decision !== null) view.decision = c.decision;
  if (c.reason !== null) view.reason = c.reason;
  if (c.receiptId !== null) view.receiptId = c.receiptId;
  return view;
}
