import type { Plan } from '@presence/contract';
import { getPlan, setPlan } from '../billing/set-plan.js';
import type { Deps } from '../deps.js';
import { currentPolicy } from '../policy/get-policy.js';
import { putPolicy } from '../policy/put-policy.js';
import { createTenant } from '../tenants/create-tenant.js';
import { CONSOLE_TENANT_NAME } from './console-settings.js';

/**
 * Finds or creates the console's internal tenant and makes its policy match the console origin
 * (rpId = its host name), so member passkeys are bound to the address the console is served on.
 * Its initial API key is never shown: nothing outside the console acts for this tenant.
 */
export async function ensureConsoleTenant(deps: Deps, origin: string): Promise<string> {
  const rpId = new URL(origin).hostname;
  const existing = (await deps.store.tenants.list()).find((t) => t.name === CONSOLE_TENANT_NAME);
  if (!existing) {
    const created = await createTenant(deps, {
      name: CONSOLE_TENANT_NAME,
      rpId,
      origins: [origin],
      fromConfiguration: true,
    });
    await deps.store.apiKeys.update(created.tenant.id, created.key.keyId, { revokedAt: deps.clock.now() });
    await ensureNoQuota(deps, created.tenant.id);
    return created.tenant.id;
  }
  const { rules } = await currentPolicy(deps, existing.id);
  if (rules.rpId !== rpId || !rules.allowedOrigins.includes(origin)) {
    const body = { rpId, allowedOrigins: [origin], rpName: 'Presence console' };
    await putPolicy(deps, existing.id, body, { fromConfiguration: true });
  }
  await ensureNoQuota(deps, existing.id);
  return existing.id;
}

/**
 * The console tenant's challenges (sign-ins, approvals) have no monthly quota and no price: anyone
 * may start a sign-in, and under the default plan's quota a flood of them would lock every member
 * out of the console until the month ends.
 */
async function ensureNoQuota(deps: Deps, tenantId: string): Promise<void> {
  const { plan } = await getPlan(deps, tenantId);
  if (plan.monthlyChallengeQuota === null && Object.keys(plan.meters).length === 0) return;
  const { currency, currencyExponent } = deps.billing.defaultPlan;
  const unlimited: Plan = {
    name: CONSOLE_TENANT_NAME,
    currency,
    currencyExponent,
    monthlyChallengeQuota: null,
    meters: {},
  };
  await setPlan(deps, { tenantId, plan: unlimited });
}
