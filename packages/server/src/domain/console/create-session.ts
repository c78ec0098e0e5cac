import type { Deps } from '../deps.js';
import { sha256Hex } from '../encoding.js';
import { newId } from '../ids.js';
import type { ConsoleSettings } from './console-settings.js';
import type { MemberRecord, SessionRecord } from './ports.js';

export interface CreatedSession {
  session: SessionRecord;
  /** The cookie value: exists only in the member's browser; the server keeps its hash. */
  token: string;
}

export async function createSession(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'sessionAbsoluteMs'>,
  member: MemberRecord,
): Promise<CreatedSession> {
  const token = deps.random.bytes(32).toString('base64url');
  const now = deps.clock.now();
  const session: SessionRecord = {
    id: newId(deps, 'ses'),
    tenantId: member.tenantId,
    memberId: member.id,
    tokenHash: sha256Hex(token),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + settings.sessionAbsoluteMs,
    revokedAt: null,
  };
  await deps.store.console.sessions.insert(session);
  return { session, token };
}
