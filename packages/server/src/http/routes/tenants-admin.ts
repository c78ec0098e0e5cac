import { CreateTenantBody, TenantCreated } from '@presence/contract';
import { onboardTenant } from '../../domain/console/onboard-tenant.js';
import type { App } from '../types.js';
import { operatorOnly } from './billing-admin.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

/** /admin/v1/tenants: the operator creates a tenant and gets its first console owner invite. */
export function tenantAdminRoutes(app: App, { console }: RouteDeps): void {
  app.post('/admin/v1/tenants', {
    onRequest: operatorOnly,
    schema: {
      tags: ['operator'],
      security: [{ operatorToken: [] }],
      summary:
        'Create a tenant; returns its first owner invite link (and, if asked, an API key), each shown once',
      body: CreateTenantBody,
      response: { 201: TenantCreated, ...problemResponses },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const created = await onboardTenant(request.deps, console, {
        name: body.name,
        rpId: body.rpId,
        origins: body.allowedOrigins,
        relatedOrigins: body.relatedOrigins,
        withApiKey: body.apiKey === true,
      });
      return reply.code(201).send(created);
    },
  });
}
