import type { ApiKey, Scope } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import type { PageRequest } from '../ports.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { ApiKeyRecord } from './ports.js';
import { checkGrantableScopes } from './check-grantable-scopes.js';
import { insertApiKey, toApiKey } from './create-api-key.js';

export async function listApiKeys(deps: Pick<Deps, 'store'>, tenantId: string, page: PageRequest) {
  const rows = await deps.store.apiKeys.list(tenantId, { limit: page.limit + 1, afterId: page.afterId });
  return { items: rows.slice(0, page.limit).map(toApiKey), hasMore: rows.length > page.limit };
}

export async function getApiKey(deps: Pick<Deps, 'store'>, tenantId: string, keyId: string): Promise<ApiKey> {
  const key = await deps.store.apiKeys.get(tenantId, keyId);
  if (!key) throw notFound('the API key');
  return toApiKey(key);
}

/** Revokes a key at once; only a grantor holding every scope of it may (see checkGrantableScopes). */
export async function revokeApiKey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'apiKeys' | 'audit'>,
  tenantId: string,
  keyId: string,
  grantorScopes: readonly Scope[],
): Promise<ApiKey> {
  const existing = await deps.store.apiKeys.get(tenantId, keyId);
  if (!existing) throw notFound('the API key');
  checkGrantableScopes(grantorScopes, existing.scopes, 'revoke');
  const key = await deps.store.transaction(async (tx) => {
    const updated = await tx.apiKeys.update(tenantId, keyId, { revokedAt: deps.clock.now() });
    if (!updated) throw notFound('the API key');
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'api_key.revoked',
      target: { type: 'api_key', id: updated.id, name: updated.name },
    });
    return updated;
  });
  deps.apiKeys.delete(key.keyHash);
  return toApiKey(key);
}

/**
 * Issues a new key with the same name and scopes; the old one keeps working for the grace
 * period, so callers can deploy the new secret without an outage. A key is rotated once: only a
 * live key never rotated before can be (a revoked, expired or already rotated key is a 409, also
 * when the rotations race across processes: the store marks the key with a compare-and-set in the
 * same transaction as the successor's insert), and only by a grantor holding every scope of it
 * (see checkGrantableScopes). The successor records `rotatedByMemberId`, the console member who
 * rotated it (null through the API and the CLI): whoever holds the new secret.
 */
export async function rotateApiKey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'apiKeys' | 'audit'>,
  tenantId: string,
  keyId: string,
  gracePeriodSeconds: number,
  grantorScopes: readonly Scope[],
  rotatedByMemberId: string | null = null,
): Promise<{ key: ApiKey; secret: string; previous: ApiKey }> {
  return deps.store.transaction(async (tx) => {
    const old = await tx.apiKeys.get(tenantId, keyId);
    if (!old) throw notFound('the API key');
    const now = deps.clock.now();
    refuseDeadKey(old, now);
    checkGrantableScopes(grantorScopes, old.scopes);
    const input = { name: old.name, scopes: old.scopes };
    const created = await insertApiKey(deps, tx, tenantId, input, rotatedByMemberId);
    const previous = await tx.apiKeys.markRotated(tenantId, keyId, {
      successorId: created.key.keyId,
      expiresAt: now + gracePeriodSeconds * 1000,
      now,
    });
    if (!previous) {
      // Another rotation, revocation or expiry came first; say which (this rolls the insert back).
      refuseDeadKey((await tx.apiKeys.get(tenantId, keyId)) ?? old, now);
      throw new DomainError(
        'conflict',
        'the API key was already rotated; rotate its successor, or create a new key',
      );
    }
    deps.apiKeys.delete(old.keyHash);
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'api_key.rotated',
      target: { type: 'api_key', id: old.id, name: old.name },
      detail: { replacementKeyId: created.key.keyId, previousExpiresAt: previous.expiresAt },
    });
    return { ...created, previous: toApiKey(previous) };
  });
}

function refuseDeadKey(key: ApiKeyRecord, now: number): void {
  if (key.revokedAt !== null) {
    throw new DomainError('conflict', 'the API key is revoked; create a new key instead of rotating it');
  }
  if (key.expiresAt !== null && key.expiresAt <= now) {
    throw new DomainError(
      'conflict',
      'the API key has expired (or its rotation grace period has ended); create a new key instead',
    );
  }
}
