import { timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.js';
import { sha256 } from '../encoding.js';

/**
 * The operator of the service (not a tenant) proves itself with the token configured as
 * PRESENCE_ADMIN_TOKEN; only its SHA-256 is kept in memory, compared in constant time.
 * False whenever no token is configured.
 */
export function authenticateOperator(deps: Pick<Deps, 'billing'>, token: string): boolean {
  const expected = deps.billing.operatorTokenSha256;
  return expected !== undefined && timingSafeEqual(sha256(token), expected);
}
