import type { ApiKey, Scope } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import type { PageRequest } from '../ports.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
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
 * period, so callers can deploy the new secret without an outage. Only a live key can be
 * rotated (a revoked key, or one whose grace period or expiry has passed, is a 409), and only by
 * a grantor holding every scope of it (see checkGrantableScopes).
 */
export async function rotateApiKey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'apiKeys' | 'audit'>,
  tenantId: string,
  keyId: string,
  gracePeriodSeconds: number,
  grantorScopes: readonly Scope[],
): Promise<{ key: ApiKey; secret: string; previous: ApiKey }> {
  const rotated = await deps.store.transaction(async (tx) => {
    const old = await tx.apiKeys.get(tenantId, keyId);
    if (!old) throw notFound('the API key');
    const now = deps.clock.now();
    if (old.revokedAt !== null) {
      throw new DomainError('conflict', 'the API key is revoked; create a new key instead of rotating it');
    }
    if (old.expiresAt !== null && old.expiresAt <= now) {
      throw new DomainError(
        'conflict',
        'the API key has expired (or its rotation grace period has ended); create a new key instead',
      );
    }
    checkGrantableScopes(grantorScopes, old.scopes);
    const graceEnd = now + gracePeriodSeconds * 1000;
    const expiresAt = old.expiresAt === null ? graceEnd : Math.min(old.expiresAt, graceEnd);
    const previous = await tx.apiKeys.update(tenantId, keyId, { expiresAt });
    const created = await insertApiKey(deps, tx, tenantId, { name: old.name, scopes: old.scopes });
    deps.apiKeys.delete(old.keyHash);
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'api_key.rotated',
      target: { type: 'api_key', id: old.id, name: old.name },
      detail: { replacementKeyId: created.key.keyId, previousExpiresAt: expiresAt },
    });
    return { ...created, previous: toApiKey(previous ?? old) };
  });
  return rotated;
}
