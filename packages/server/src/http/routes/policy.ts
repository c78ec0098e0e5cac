import { NoQuery, PolicyBody, PolicyVersion } from '@presence/contract';
import { getPolicy } from '../../domain/policy/get-policy.js';
import { putPolicy } from '../../domain/policy/put-policy.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

export function policyRoutes(app: App, _routeDeps: RouteDeps): void {
  app.get('/v1/policy', {
    config: { scope: 'policy:read' },
    schema: {
      tags: ['policy'],
      summary: 'The policy in force',
      querystring: NoQuery,
      response: { 200: PolicyVersion, ...problemResponses },
    },
    handler: async (request) => getPolicy(request.deps, tenantOf(request)),
  });

  app.put('/v1/policy', {
    config: { scope: 'policy:write', idempotent: true },
    schema: {
      tags: ['policy'],
      summary: 'Replace the policy: writes a new immutable version',
      body: PolicyBody,
      response: { 200: PolicyVersion, ...problemResponses },
    },
    handler: async (request) => putPolicy(request.deps, tenantOf(request), request.body),
  });
}
