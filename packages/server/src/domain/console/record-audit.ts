import type { AuditActor, AuditContext } from '../audit/ports.js';
import { withAudit } from '../audit/with-audit.js';
import type { MemberRecord } from './ports.js';

/** A console member as the actor of an audit event. */
export function memberActor(member: Pick<MemberRecord, 'id' | 'displayName'>): AuditActor {
  return { type: 'console_member', id: member.id, name: member.displayName };
}

/** The deps of a console request made by `member` (optionally approved by a receipt). */
export function asMember<D extends object>(
  deps: D,
  member: Pick<MemberRecord, 'id' | 'displayName'>,
  extra: Omit<AuditContext, 'actor'> = {},
): D & { audit: AuditContext } {
  return withAudit(deps, { ...extra, actor: memberActor(member) });
}
