import { SCOPES } from '@presence/contract';
import type { Deps } from '../deps.js';
import { insertApiKey } from '../api-keys/create-api-key.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';
import type { TenantRecord } from './ports.js';
import { insertPolicyVersion } from '../policy/put-policy.js';

export interface CreateTenantInput {
  name: string;
  rpId: string;
  origins: string[];
  /** Origins outside the rpId that the rpId's /.well-known/webauthn lists (also in `origins`). */
  relatedOrigins?: string[] | undefined;
  /** The service's own tenant made from its configuration: its rpId is not checked (put-policy.ts). */
  fromConfiguration?: boolean | undefined;
  rpName?: string | undefined;
}

/** A tenant, its first policy version and one full-scope API key, all or nothing. */
export async function createTenant(deps: Pick<Deps, 'store' | 'clock' | 'random'>, input: CreateTenantInput) {
  return deps.store.transaction(async (tx) => {
    const { tenant, policy } = await insertTenant(deps, tx, input);
    const { key, secret } = await insertApiKey(deps, tx, tenant.id, { name: 'initial', scopes: [...SCOPES] });
    return { tenant, policy, key, apiKey: secret };
  });
}

/** The tenant row and its first policy version, inside the caller's transaction. */
export async function insertTenant(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  input: CreateTenantInput,
) {
  const tenant: TenantRecord = { id: newId(deps, 'ten'), name: input.name, createdAt: deps.clock.now() };
  await tx.tenants.insert(tenant);
  const policy = await insertPolicyVersion(
    deps,
    tx,
    tenant.id,
    {
      rpId: input.rpId,
      allowedOrigins: input.origins,
      rpName: input.rpName ?? input.name,
      ...(input.relatedOrigins ? { relatedOrigins: input.relatedOrigins } : {}),
    },
    1,
    { fromConfiguration: input.fromConfiguration },
  );
  return { tenant, policy };
}
