import type { Deps } from '../../domain/deps.js';
import type { App } from '../types.js';

/**
 * `request.deps`: a handler's only door to the domain (see http/routes/route-deps.ts). Every
 * request starts with the service's deps; a plugin that runs the route inside a unit of work of its
 * own (idempotency) replaces them for that request only.
 */
export function registerRequestDeps(app: App, deps: Deps): void {
  // Set on every request below; null here so no object is shared between requests.
  app.decorateRequest('deps', null as unknown as Deps);
  app.addHook('onRequest', async (request) => {
    request.deps = deps;
  });
}
