import { AuditEvent, ListAuditEventsQuery, Page } from '@presence/contract';
import { listAuditEvents } from '../../domain/audit/list-audit-events.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';

/** GET /v1/audit-events (docs/api-contract.md#14-audit-events): every change of configuration or access, newest first. */
export function auditEventRoutes(app: App, { cursors }: RouteDeps): void {
  app.get('/v1/audit-events', {
    config: { scope: 'audit:read' },
    schema: {
      tags: ['audit'],
      summary: 'Audit events: who changed which configuration or access, through which door',
      querystring: ListAuditEventsQuery,
      response: { 200: Page(AuditEvent), ...problemResponses },
    },
    handler: async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const scope = cursorScope(tenantOf(request), 'audit-events', filters);
      const page = await listAuditEvents(request.deps, tenantOf(request), filters, {
        limit: limit ?? 50,
        beforeId: readAfterId(cursors, scope, cursor),
      });
      return pageOf(cursors, scope, page, (e) => e.auditEventId);
    },
  });
}
