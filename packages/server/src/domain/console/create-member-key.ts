import type { ApiKey, Scope } from '@presence/contract';
import { createApiKey } from '../api-keys/create-api-key.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { gatedScopesIn, scopesBeyondRole, scopesOfRole } from './permissions.js';
import type { MemberRecord } from './ports.js';

export interface MemberKeyInput {
  name: string;
  scopes: Scope[];
}

/**
 * A member may create, rotate or revoke only keys whose scopes its role may use itself (the role
 * table in permissions.ts). Refuses an empty choice in words, and a foreign scope with 403 naming it.
 */
export function checkMemberKeyScopes(
  member: MemberRecord,
  scopes: readonly Scope[],
  verb: 'create' | 'rotate' | 'revoke',
): void {
  if (scopes.length === 0) {
    throw new DomainError('invalid_request', 'Choose at least one scope', [
      { field: 'body/scopes', message: 'Choose at least one scope' },
    ]);
  }
  const missing = scopesBeyondRole(member.role, scopes);
  if (missing.length === 0) return;
  const field = verb === 'create' ? 'body/scopes' : 'target';
  throw new DomainError(
    'forbidden',
    `the ${member.role} role may not use ${missing.join(', ')}, so it may not ${verb} a key that holds it`,
    [{ field, message: `not allowed to the ${member.role} role: ${missing.join(', ')}` }],
  );
}

/**
 * Creates a key for a member of the console. A key with a scope that can change policy, keys,
 * credentials, webhooks or approvals is created only after the member's passkey approved exactly
 * that key (`approvedByPasskey`); the API's rule that a key grants no more than its grantor holds
 * applies on top, with the role's scopes as the grantor's.
 */
export async function createMemberKey(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  member: MemberRecord,
  input: MemberKeyInput,
  approvedByPasskey: boolean,
): Promise<{ key: ApiKey; secret: string }> {
  checkMemberKeyScopes(member, input.scopes, 'create');
  const gated = gatedScopesIn(input.scopes);
  if (gated.length > 0 && !approvedByPasskey) {
    throw new DomainError(
      'forbidden',
      `a key holding ${gated.join(', ')} can change what the passkey gate protects: create it with your passkey (JavaScript on) or leave those scopes out`,
      [{ field: 'body/scopes', message: `needs a passkey approval: ${gated.join(', ')}` }],
    );
  }
  const scopes = { name: input.name, scopes: input.scopes };
  return createApiKey(deps, member.tenantId, scopes, scopesOfRole(member.role), member.id);
}
