import {
  AdminInvoiceParams,
  ClosePeriodBody,
  ClosePeriodParams,
  ClosePeriodResult,
  Invoice,
  NoQuery,
  PlanAssignment,
  PlanAssignmentBody,
  SettleInvoiceBody,
  TenantParams,
} from '@presence/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OPERATOR_ACTOR, withAudit } from '../../domain/audit/with-audit.js';
import { authenticateOperator } from '../../domain/billing/authenticate-operator.js';
import { closePeriod } from '../../domain/billing/close-period-for-tenants.js';
import { getPlan, setPlan } from '../../domain/billing/set-plan.js';
import { settleInvoice } from '../../domain/billing/settle-invoice.js';
import { sendProblem } from '../plugins/problem.js';
import type { App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;
const tags = ['operator'];
const security = [{ operatorToken: [] }];

/**
 * /admin/v1: the service operator's billing API (plans, period close, paid/void), outside any
 * tenant. `Authorization: Bearer <PRESENCE_ADMIN_TOKEN>`; without that setting every call is 401.
 */
export function billingAdminRoutes(app: App, _routeDeps: RouteDeps): void {
  const onRequest = operatorOnly;
  const settle = (status: 'paid' | 'void', summary: string) =>
    app.post(`/admin/v1/invoices/:invoiceId/${status === 'paid' ? 'pay' : 'void'}`, {
      onRequest,
      schema: {
        tags,
        security,
        summary,
        params: AdminInvoiceParams,
        body: SettleInvoiceBody,
        response: { 200: Invoice, ...problemResponses },
      },
      handler: async (request) =>
        settleInvoice(request.deps, request.params.invoiceId, status, request.body.note),
    });
  settle('paid', 'Record that an open invoice was paid (repeating it changes nothing)');
  settle('void', 'Void an open invoice (repeating it changes nothing)');

  app.post('/admin/v1/billing/periods/:period/close', {
    onRequest,
    schema: {
      tags,
      security,
      summary: 'Finalize the invoices of a past period (YYYY-MM), for one tenant or all',
      params: ClosePeriodParams,
      body: ClosePeriodBody,
      response: { 200: ClosePeriodResult, ...problemResponses },
    },
    handler: async (request) => closePeriod(request.deps, { period: request.params.period, ...request.body }),
  });

  app.get('/admin/v1/tenants/:tenantId/plan', {
    onRequest,
    schema: {
      tags,
      security,
      summary: "The plan in force for the tenant's current period",
      params: TenantParams,
      querystring: NoQuery,
      response: { 200: PlanAssignment, ...problemResponses },
    },
    handler: async (request) => getPlan(request.deps, request.params.tenantId),
  });

  app.put('/admin/v1/tenants/:tenantId/plan', {
    onRequest,
    schema: {
      tags,
      security,
      summary: 'Assign a plan to a tenant from a period on (default: the current one)',
      params: TenantParams,
      body: PlanAssignmentBody,
      response: { 200: PlanAssignment, ...problemResponses },
    },
    handler: async (request) => setPlan(request.deps, { tenantId: request.params.tenantId, ...request.body }),
  });
}

/** Checked on request, before the body is read: callers without the token learn nothing. */
/** preHandler of every operator route: the operator token, or a 401 problem. */
export async function operatorOnly(request: FastifyRequest, reply: FastifyReply) {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (match && authenticateOperator(request.deps, match[1]!)) {
    request.deps = withAudit(request.deps, { actor: OPERATOR_ACTOR, requestId: request.id });
    return;
  }
  reply.header('www-authenticate', 'Bearer realm="presence-operator"');
  const detail =
    request.deps.billing.operatorTokenSha256 === undefined
      ? 'the operator API is off: set PRESENCE_ADMIN_TOKEN to enable it'
      : 'send Authorization: Bearer <operator token>';
  return sendProblem(reply, request, 'unauthorized', detail);
}
