import type { Deps } from '../deps.js';
import type { ConsoleSettings } from './console-settings.js';
import { ensureConsoleTenant } from './ensure-console-tenant.js';

export type ConsoleOptions = Omit<ConsoleSettings, 'consoleTenantId'>;

/**
 * The console's settings, its internal tenant made on first use (so a service whose console is
 * never used has no such tenant). The promise is kept; a failed attempt is retried next time.
 */
export function consoleSettingsResolver(deps: Deps, options: ConsoleOptions): () => Promise<ConsoleSettings> {
  let pending: Promise<ConsoleSettings> | undefined;
  return () => {
    pending ??= ensureConsoleTenant(deps, options.origin).then(
      (consoleTenantId) => ({ ...options, consoleTenantId }),
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
}
