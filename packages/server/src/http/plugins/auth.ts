import type { Deps } from '../../domain/deps.js';
import { authenticateApiKey } from '../../domain/api-keys/authenticate-api-key.js';
import type { App } from '../types.js';
import { sendProblem } from './problem.js';

const BEARER = /^Bearer ([A-Za-z0-9_-]{1,200})$/;

/**
 * Every route that names a scope in its config requires `Authorization: Bearer <API key>` with
 * that scope: a missing, unknown, revoked or expired key is 401, a missing scope 403. It runs
 * on request, before the body is read, so unauthenticated callers learn nothing about schemas.
 */
export function registerAuth(app: App, deps: Pick<Deps, 'store' | 'clock' | 'apiKeys'>): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) return;
    const match = BEARER.exec(request.headers.authorization ?? '');
    const key = match ? await authenticateApiKey(deps, match[1]!) : undefined;
    if (!key) {
      reply.header('www-authenticate', 'Bearer realm="presence"');
      return sendProblem(
        reply,
        request,
        'unauthorized',
        match ? 'the API key is unknown, revoked or expired' : 'send Authorization: Bearer <API key>',
      );
    }
    if (!key.scopes.includes(scope)) {
      return sendProblem(reply, request, 'insufficient_scope', `this route requires the scope ${scope}`);
    }
    request.auth = { tenantId: key.tenantId, keyId: key.id, keyName: key.name, scopes: key.scopes };
  });
}
