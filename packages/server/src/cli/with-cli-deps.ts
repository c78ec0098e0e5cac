import { userInfo } from 'node:os';
import { loadConfig, type Config } from '../config/load-config.js';
import { composeDeps } from '../compose.js';
import { CLI_ACTOR, withAudit } from '../domain/audit/with-audit.js';
import type { Deps } from '../domain/deps.js';

/** The local user running the CLI, for audit events ("presence CLI (dana)"). */
function cliActor() {
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the door alone names the actor.
  }
  return user ? { ...CLI_ACTOR, name: `${CLI_ACTOR.name} (${user})` } : CLI_ACTOR;
}

/**
 * Local administration: the domain through compose, not over HTTP, acting as the CLI (its
 * changes are audit events with actor type `cli`). Closes the store afterwards.
 */
export async function withCliDeps<T>(
  fn: (deps: Deps) => Promise<T>,
  config: Config = loadConfig(),
): Promise<T> {
  const deps = withAudit(await composeDeps(config), { actor: cliActor() });
  try {
    return await fn(deps);
  } finally {
    await deps.store.close();
  }
}
