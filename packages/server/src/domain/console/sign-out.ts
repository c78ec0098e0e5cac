import type { Deps } from '../deps.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { asMember } from './record-audit.js';
import type { SignedInMember } from './authenticate-session.js';

/** Ends this session, or with `everywhere` every session of the member (all browsers). */
export async function signOut(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  signedIn: SignedInMember,
  everywhere: boolean,
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    if (everywhere) await tx.console.sessions.revokeAllOfMember(signedIn.member.id, now);
    else await tx.console.sessions.revoke(signedIn.session.id, now);
    if (everywhere) {
      await recordAuditEvent(asMember(deps, signedIn.member), tx, {
        tenantId: signedIn.member.tenantId,
        action: 'member.signed_out_everywhere',
        target: { type: 'member', id: signedIn.member.id, name: signedIn.member.displayName },
      });
    }
  });
}
