import type { ApiKey, Scope } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { newId } from '../ids.js';
import type { ApiKeyRecord } from './ports.js';
import type { StoreTx } from '../ports.js';
import { newKeySecret } from './api-key-secret.js';
import { checkGrantableScopes } from './check-grantable-scopes.js';

export interface CreateApiKeyInput {
  name: string;
  scopes: Scope[];
  expiresInSeconds?: number | undefined;
}

/**
 * Creates a key and returns its secret: the only time the secret exists outside the caller.
 * `grantorScopes` are the scopes of whoever asks (the calling key's, or OWNER_SCOPES for an
 * owner): the new key's scopes must be among them. `createdByMemberId` is the console member who
 * asks (null through the API, the CLI and the operator API).
 */
export async function createApiKey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  input: CreateApiKeyInput,
  grantorScopes: readonly Scope[],
  createdByMemberId: string | null = null,
): Promise<{ key: ApiKey; secret: string }> {
  checkGrantableScopes(grantorScopes, input.scopes);
  return deps.store.transaction(async (tx) => {
    const created = await insertApiKey(deps, tx, tenantId, input, createdByMemberId);
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'api_key.created',
      target: { type: 'api_key', id: created.key.keyId, name: created.key.name },
      detail: { scopes: created.key.scopes, expiresAt: created.key.expiresAt },
    });
    return created;
  });
}

export async function insertApiKey(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  input: CreateApiKeyInput,
  createdByMemberId: string | null = null,
): Promise<{ key: ApiKey; secret: string }> {
  const now = deps.clock.now();
  const { secret, prefix, keyHash } = newKeySecret(deps.random);
  const record: ApiKeyRecord = {
    id: newId(deps, 'key'),
    tenantId,
    name: input.name,
    prefix,
    keyHash,
    scopes: [...input.scopes],
    createdAt: now,
    lastUsedAt: null,
    expiresAt: input.expiresInSeconds === undefined ? null : now + input.expiresInSeconds * 1000,
    revokedAt: null,
    createdByMemberId,
  };
  await tx.apiKeys.insert(record);
  return { key: toApiKey(record), secret };
}

export function toApiKey(k: ApiKeyRecord): ApiKey {
  return {
    keyId: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: toIso(k.createdAt),
    lastUsedAt: k.lastUsedAt === null ? null : toIso(k.lastUsedAt),
    expiresAt: k.expiresAt === null ? null : toIso(k.expiresAt),
    revokedAt: k.revokedAt === null ? null : toIso(k.revokedAt),
  };
}
