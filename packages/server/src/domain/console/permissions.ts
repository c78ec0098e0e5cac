import { DomainError } from '../errors.js';
import type { ConsoleRole, MemberRecord } from './ports.js';

/** What a role may change. Every role may read everything of its tenant; auditors only read (an export pack is a read). */
export type ConsolePermission = 'keys' | 'webhooks' | 'credentials' | 'exports' | 'policy' | 'members';

const GRANTS: Record<ConsoleRole, readonly ConsolePermission[]> = {
  owner: ['keys', 'webhooks', 'credentials', 'exports', 'policy', 'members'],
  admin: ['keys', 'webhooks', 'credentials', 'exports', 'policy'],
  developer: ['keys', 'webhooks', 'exports'],
  auditor: ['exports'],
};

export function mayChange(role: ConsoleRole, permission: ConsolePermission): boolean {
  return GRANTS[role].includes(permission);
}

export function requirePermission(member: MemberRecord, permission: ConsolePermission): void {
  if (!mayChange(member.role, permission)) {
    throw new DomainError('forbidden', `the ${member.role} role may not change ${permission}`);
  }
}
