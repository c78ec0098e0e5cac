import type { Deps } from '../deps.js';
import { recordAudit } from './record-audit.js';
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
      await recordAudit(deps, tx, {
        tenantId: signedIn.member.tenantId,
        memberId: signedIn.member.id,
        action: 'member.signed-out-everywhere',
        target: signedIn.member.id,
        detail: {},
      });
    }
  });
}
