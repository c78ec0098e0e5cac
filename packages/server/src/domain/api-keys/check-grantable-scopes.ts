import { SCOPES, type Scope } from '@presence/contract';
import { DomainError } from '../errors.js';

/** What an owner acting outside an API key holds (the operator CLI, the tenant console). */
export const OWNER_SCOPES: readonly Scope[] = SCOPES;

/**
 * `keys:manage` is not a path to every scope: whoever creates or rotates a key may only give it
 * scopes they hold themselves. It follows that only a grantor holding every scope (a full-scope
 * key, or an owner passing OWNER_SCOPES) can mint a full-scope key. Revoking follows the same
 * rule (`action: 'revoke'`), so a narrow key cannot switch off a wider one. Refuses with 403
 * `forbidden` naming the scopes the grantor lacks.
 */
export function checkGrantableScopes(
  grantorScopes: readonly Scope[],
  requested: readonly Scope[],
  action: 'grant' | 'revoke' = 'grant',
): void {
  const missing = requested.filter((scope) => !grantorScopes.includes(scope));
  if (missing.length === 0) return;
  const field = action === 'grant' ? 'body/scopes' : 'params/keyId';
  const rule =
    action === 'grant' ? 'grant scopes it holds itself' : 'revoke keys whose scopes it holds itself';
  throw new DomainError('forbidden', `a key can only ${rule}; this one lacks ${missing.join(', ')}`, [
    { field, message: `not held by the calling key: ${missing.join(', ')}` },
  ]);
}
