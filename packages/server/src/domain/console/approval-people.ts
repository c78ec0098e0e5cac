import type { Deps } from '../deps.js';
import { memberIdOfSubject, memberSubject } from './console-settings.js';

/**
 * How a console change's approval page names its people: each member subject (`console:mem_…`) as
 * the member's display name and role ("Dana (owner)"), and which one asked for the change (the
 * action's `memberId`; the requester's passkey gave the first approval). Subjects of no known
 * member keep their subject.
 */
export interface ApprovalPeople {
  /** Subject → "Name (role)". */
  names: Map<string, string>;
  requester: { subject: string; label: string } | null;
}

export async function consoleApprovalPeople(
  deps: Pick<Deps, 'store'>,
  action: Record<string, unknown>,
  subjects: string[],
): Promise<ApprovalPeople> {
  const requesterId = typeof action['memberId'] === 'string' ? action['memberId'] : null;
  const requesterSubject = requesterId === null ? null : memberSubject(requesterId);
  const all = [...new Set(requesterSubject === null ? subjects : [...subjects, requesterSubject])];
  const names = new Map<string, string>();
  await Promise.all(
    all.map(async (subject) => {
      const id = memberIdOfSubject(subject);
      const member = id === undefined ? undefined : await deps.store.console.members.getAnyTenant(id);
      if (member) names.set(subject, `${member.displayName} (${member.role})`);
    }),
  );
  const requester =
    requesterSubject === null
      ? null
      : { subject: requesterSubject, label: names.get(requesterSubject) ?? requesterSubject };
  return { names, requester };
}
