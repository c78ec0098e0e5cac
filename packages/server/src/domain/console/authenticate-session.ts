import type { Deps } from '../deps.js';
import { sha256Hex } from '../encoding.js';
import type { ConsoleSettings } from './console-settings.js';
import type { MemberRecord, SessionRecord } from './ports.js';

export interface SignedInMember {
  session: SessionRecord;
  member: MemberRecord;
}

/** Only refresh last_seen_at this often, so page views do not each write a row. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The member behind a session cookie, or undefined when the session is unknown, signed out,
 * idle for longer than the idle timeout, past its absolute end, or its member was removed.
 */
export async function authenticateSession(
  deps: Pick<Deps, 'store' | 'clock'>,
  settings: Pick<ConsoleSettings, 'sessionIdleMs'>,
  token: string,
): Promise<SignedInMember | undefined> {
  const session = await deps.store.console.sessions.findByTokenHash(sha256Hex(token));
  const now = deps.clock.now();
  if (!session || session.revokedAt !== null || session.expiresAt <= now) return undefined;
  if (session.lastSeenAt + settings.sessionIdleMs <= now) return undefined;
  const member = await deps.store.console.members.get(session.tenantId, session.memberId);
  if (!member || member.removedAt !== null) return undefined;
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await deps.store.console.sessions.touch(session.id, now);
  return { session, member };
}
