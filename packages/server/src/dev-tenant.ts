import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import type { Deps } from './domain/deps.js';
import { createTenant } from './domain/tenants/create-tenant.js';
import { createInvite } from './domain/console/create-invite.js';
import type { ConsoleOptions } from './domain/console/resolve-console-settings.js';
import { currentPolicy } from './domain/policy/get-policy.js';

export const DEV_TENANT_NAME = 'development';

/** What a development start has to tell the developer (main.ts prints it as one block). */
export interface DevelopmentStart {
  tenantId: string;
  /** Set on the start that created the tenant: its API key, shown this once. */
  apiKey?: string | undefined;
  /** Set while the tenant has no console member: a fresh single-use owner invite. */
  inviteUrl?: string | undefined;
  /** Set when the tenant's policy does not allow the development origin (PORT changed since). */
  originMissing?: string | undefined;
}

/**
 * Development only: the first start creates a tenant for the development origin (from `PORT` and
 * `HOST` unless PRESENCE_DEV_ORIGIN is set) with an API key shown once. Later starts find it again
 * by name.
 */
export async function ensureDevTenant(
  deps: Deps,
  config: Config,
  logger: Logger | false,
): Promise<DevelopmentStart> {
  const existing = (await deps.store.tenants.list()).find((t) => t.name === DEV_TENANT_NAME);
  if (existing) {
    const { rules } = await currentPolicy(deps, existing.id);
    const allowed = rules.allowedOrigins.includes(config.devOrigin);
    return { tenantId: existing.id, originMissing: allowed ? undefined : config.devOrigin };
  }
  const created = await createTenant(deps, {
    name: DEV_TENANT_NAME,
    rpId: new URL(config.devOrigin).hostname,
    origins: [config.devOrigin],
    // The operator's own PRESENCE_DEV_ORIGIN, not a caller's input: never checked, so a start never fails on it.
    fromConfiguration: true,
  });
  if (logger) logger.info({ tenantId: created.tenant.id }, 'development tenant created');
  return { tenantId: created.tenant.id, apiKey: created.apiKey };
}

/**
 * Development only: while the development tenant has no console member, every start makes a
 * fresh single-use owner invite, so a newcomer reaches a signed-in console in one click.
 */
export async function createDevInvite(
  deps: Deps,
  options: ConsoleOptions,
  tenantId: string,
): Promise<string | undefined> {
  if ((await deps.store.console.members.list(tenantId)).length > 0) return undefined;
  const { inviteUrl } = await createInvite(deps, options, { tenantId, role: 'owner', createdBy: null });
  return inviteUrl;
}
