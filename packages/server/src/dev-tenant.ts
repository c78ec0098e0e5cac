import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import type { Deps } from './domain/deps.js';
import { createTenant } from './domain/tenants/create-tenant.js';
import { createInvite } from './domain/console/create-invite.js';
import type { ConsoleOptions } from './domain/console/resolve-console-settings.js';

export const DEV_TENANT_NAME = 'development';

/**
 * Development only: the first start creates a tenant for `localhost` and prints its API key
 * once. Later starts find it again by name.
 */
export async function ensureDevTenant(deps: Deps, config: Config, logger: Logger | false): Promise<string> {
  const existing = (await deps.store.tenants.list()).find((t) => t.name === DEV_TENANT_NAME);
  if (existing) return existing.id;
  const created = await createTenant(deps, {
    name: DEV_TENANT_NAME,
    rpId: new URL(config.devOrigin).hostname,
    origins: [config.devOrigin],
    // The operator's own PRESENCE_DEV_ORIGIN, not a caller's input: never checked, so a start never fails on it.
    fromConfiguration: true,
  });
  // Printed to stdout once, on purpose and outside the log stream: it is the developer's key.
  process.stdout.write(
    `\nDevelopment tenant ${created.tenant.id} created for ${config.devOrigin}.\n` +
      `Its API key (shown once, stored only as a hash):\n\n  ${created.apiKey}\n\n`,
  );
  if (logger) logger.info({ tenantId: created.tenant.id }, 'development tenant created');
  return created.tenant.id;
}

/**
 * Development only: while the development tenant has no console member, every start prints a
 * fresh single-use owner invite, so a newcomer reaches a signed-in console in one click.
 */
export async function printDevInvite(deps: Deps, options: ConsoleOptions, tenantId: string): Promise<void> {
  if ((await deps.store.console.members.list(tenantId)).length > 0) {
    process.stdout.write(`Tenant console: ${options.origin}/console\n\n`);
    return;
  }
  const { inviteUrl } = await createInvite(deps, options, { tenantId, role: 'owner', createdBy: null });
  process.stdout.write(
    `Tenant console: open this one-time owner invite and enroll a passkey:\n\n  ${inviteUrl}\n\n`,
  );
}
