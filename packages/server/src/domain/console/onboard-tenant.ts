import { SCOPES } from '@presence/contract';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { insertApiKey } from '../api-keys/create-api-key.js';
import { toIso } from '../encoding.js';
import { insertTenant, type CreateTenantInput } from '../tenants/create-tenant.js';
import type { ConsoleSettings } from './console-settings.js';
import { createInvite } from './create-invite.js';

/**
 * The operator's way to create a tenant without database access: the tenant, its first policy,
 * optionally a full-scope API key, then a single-use invite for its first console owner.
 */
export async function onboardTenant(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  settings: Pick<ConsoleSettings, 'origin' | 'inviteTtlMs'>,
  input: CreateTenantInput & { withApiKey: boolean },
) {
  const created = await deps.store.transaction(async (tx) => {
    const { tenant } = await insertTenant(deps, tx, input);
    const key = input.withApiKey
      ? await insertApiKey(deps, tx, tenant.id, { name: 'initial', scopes: [...SCOPES] })
      : undefined;
    await recordAuditEvent(deps, tx, {
      tenantId: tenant.id,
      action: 'tenant.created',
      target: { type: 'tenant', id: tenant.id, name: tenant.name },
      detail: { rpId: input.rpId, initialKeyId: key?.key.keyId ?? null },
    });
    return { tenant, apiKey: key?.secret };
  });
  const { invite, inviteUrl } = await createInvite(deps, settings, {
    tenantId: created.tenant.id,
    role: 'owner',
    createdBy: null,
  });
  return {
    tenantId: created.tenant.id,
    name: created.tenant.name,
    ownerInviteUrl: inviteUrl,
    ownerInviteExpiresAt: toIso(invite.expiresAt),
    ...(created.apiKey === undefined ? {} : { apiKey: created.apiKey }),
  };
}
