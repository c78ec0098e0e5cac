import { withAudit } from '../../domain/audit/with-audit.js';
import type { Deps } from '../../domain/deps.js';
import type { App } from '../types.js';

/**
 * `request.deps`: a handler's only door to the domain (see http/routes/route-deps.ts). Every
 * request starts with the service's deps; a plugin that runs the route inside a unit of work of its
 * own (idempotency) replaces them for that request only. An API key's request acts as that key
 * (its audit events name it, domain/audit); registered after auth, so `request.auth` is known.
 */
export function registerRequestDeps(app: App, deps: Deps): void {
  // Set on every request below; null here so no object is shared between requests.
  app.decorateRequest('deps', null as unknown as Deps);
  app.addHook('onRequest', async (request) => {
    const auth = request.auth;
    request.deps = auth
      ? withAudit(deps, {
          actor: { type: 'api_key', id: auth.keyId, name: auth.keyName },
          requestId: request.id,
        })
      : deps;
  });
}
