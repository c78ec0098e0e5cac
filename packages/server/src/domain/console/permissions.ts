import type { Scope } from '@presence/contract';
import { DomainError } from '../errors.js';
import type { ConsoleRole, MemberRecord } from './ports.js';

/**
 * What a role may change. Every role may read everything of its tenant; auditors only read (an
 * export pack is a read). `gate` is running the presence gate itself (challenges, verification,
 * approval requests): what a backend does, never a change to the tenant's configuration.
 */
export type ConsolePermission =
  'keys' | 'webhooks' | 'credentials' | 'exports' | 'policy' | 'members' | 'gate';

/** The role table: the one source of what a member may change, in the console and through keys. */
const GRANTS: Record<ConsoleRole, readonly ConsolePermission[]> = {
  owner: ['keys', 'webhooks', 'credentials', 'exports', 'policy', 'members', 'gate'],
  admin: ['keys', 'webhooks', 'credentials', 'exports', 'policy', 'gate'],
  developer: ['keys', 'webhooks', 'exports', 'gate'],
  auditor: ['exports'],
};

/** Scopes that only read: every role holds them. */
const READ_SCOPES: readonly Scope[] = [
  'credentials:read',
  'challenges:read',
  'receipts:read',
  'billing:read',
  'policy:read',
  'approvals:read',
  'audit:read',
];

/** The API scopes that carry each permission (`members` has none: no key manages members). */
const PERMISSION_SCOPES: Record<ConsolePermission, readonly Scope[]> = {
  keys: ['keys:manage'],
  webhooks: ['webhooks:manage'],
  credentials: ['credentials:write'],
  exports: ['receipts:export'],
  policy: ['policy:write'],
  members: [],
  gate: ['challenges:write', 'presence:verify', 'approvals:write'],
};

/**
 * Scopes whose holder can change policy, keys, credentials, webhooks or approvals: a key holding
 * one is minted (or rotated) in the console only through the passkey gate, like the change it allows.
 */
export const GATED_SCOPES: readonly Scope[] = [
  'policy:write',
  'keys:manage',
  'credentials:write',
  'webhooks:manage',
  'approvals:write',
];

export function mayChange(role: ConsoleRole, permission: ConsolePermission): boolean {
  return GRANTS[role].includes(permission);
}

export function requirePermission(member: MemberRecord, permission: ConsolePermission): void {
  if (!mayChange(member.role, permission)) {
    throw new DomainError('forbidden', `the ${member.role} role may not change ${permission}`);
  }
}

/** The API scopes a role may use itself, and so the only ones it may put on a key. */
export function scopesOfRole(role: ConsoleRole): readonly Scope[] {
  return [...READ_SCOPES, ...GRANTS[role].flatMap((p) => PERMISSION_SCOPES[p])];
}

/** The scopes among `scopes` that the role may not use (none: it may hold a key with all of them). */
export function scopesBeyondRole(role: ConsoleRole, scopes: readonly Scope[]): Scope[] {
  const allowed = scopesOfRole(role);
  return scopes.filter((s) => !allowed.includes(s));
}

export function gatedScopesIn(scopes: readonly Scope[]): Scope[] {
  return scopes.filter((s) => GATED_SCOPES.includes(s));
}

/** A role may give (by invite or role change) only a role whose every permission it holds itself. */
export function requireGrantableRole(member: MemberRecord, role: ConsoleRole): void {
  const missing = GRANTS[role].filter((p) => !mayChange(member.role, p));
  if (missing.length > 0) {
    throw new DomainError(
      'forbidden',
      `the ${member.role} role may not give the ${role} role, which may change ${missing.join(', ')}`,
      [{ field: 'body/role', message: `higher than ${member.role}` }],
    );
  }
}
