import type { Credential } from '@presence/contract';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import { recordEvent } from '../events/record-event.js';
import type { CredentialRecord } from './ports.js';
import type { PageRequest, StoreTx } from '../ports.js';
import { toCredential } from './to-credential.js';

export async function listCredentials(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  filter: { subject?: string | undefined; includeRevoked: boolean },
  page: PageRequest,
): Promise<{ items: Credential[]; hasMore: boolean }> {
  const rows = await deps.store.credentials.list(tenantId, filter, {
    limit: page.limit + 1,
    afterId: page.afterId,
  });
  return { items: rows.slice(0, page.limit).map(toCredential), hasMore: rows.length > page.limit };
}

/** Accepts the service id (`cred_…`) or the WebAuthn credential id. */
export async function findCredential(
  tx: StoreTx,
  tenantId: string,
  ref: string,
): Promise<CredentialRecord | undefined> {
  if (ref.startsWith('cred_')) {
    const byId = await tx.credentials.get(tenantId, ref);
    if (byId) return byId;
  }
  return tx.credentials.getByCredentialId(tenantId, ref);
}

export async function getCredential(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  ref: string,
): Promise<Credential> {
  const found = await findCredential(deps.store, tenantId, ref);
  if (!found) throw notFound('the credential');
  return toCredential(found);
}

/**
 * Revokes a credential: every later assertion with it is denied (CREDENTIAL_REVOKED). Revoking
 * twice is harmless and returns the credential as it is; however many revocations race, one
 * revokes it and records the one `credential.revoked` event (the store's compare-and-set).
 */
export async function revokeCredential(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  tenantId: string,
  ref: string,
): Promise<Credential> {
  return deps.store.transaction((tx) => revokeCredentialIn(deps, tx, tenantId, ref));
}

/** revokeCredential inside the caller's transaction. */
export async function revokeCredentialIn(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  ref: string,
): Promise<Credential> {
  const found = await findCredential(tx, tenantId, ref);
  if (!found) throw notFound('the credential');
  if (found.revokedAt !== null) return toCredential(found);
  const revoked = await tx.credentials.revoke(tenantId, found.id, deps.clock.now());
  if (!revoked) {
    // A concurrent revocation won the compare-and-set and recorded the one credential.revoked event.
    const current = await tx.credentials.get(tenantId, found.id);
    if (!current) throw notFound('the credential');
    return toCredential(current);
  }
  await recordEvent(deps, tx, tenantId, 'credential.revoked', { credential: toCredential(revoked) });
  return toCredential(revoked);
}
