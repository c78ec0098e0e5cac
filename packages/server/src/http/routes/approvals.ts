import {
  Approval,
  ApprovalCreated,
  ApprovalList,
  ApprovalParams,
  CreateApprovalBody,
  GetApprovalQuery,
  ListApprovalsQuery,
  NoQuery,
} from '@presence/contract';
import { cancelApproval } from '../../domain/approvals/cancel-approval.js';
import { createApproval } from '../../domain/approvals/create-approval.js';
import { getApproval } from '../../domain/approvals/get-approval.js';
import { listApprovals } from '../../domain/approvals/list-approvals.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['approvals'];

/** The API key behind the request, for the audit log (the auth plugin guarantees one here). */
function actorOf(request: { auth: { keyId: string } | null }) {
  return { apiKeyId: request.auth?.keyId ?? 'unknown' };
}

/** The approvals API of docs/api-contract.md#13-approvals (docs/approvals.md). */
export function approvalRoutes(app: App, { cursors, links }: RouteDeps): void {
  app.post('/v1/approvals', {
    config: { scope: 'approvals:write', idempotent: true },
    schema: {
      tags,
      summary: 'Ask named approvers to approve one exact action on the hosted page',
      body: CreateApprovalBody,
      response: { 201: ApprovalCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await createApproval(request.deps, tenantOf(request), request.body, links, actorOf(request))),
  });

  app.get('/v1/approvals/:approvalId', {
    config: { scope: 'approvals:read' },
    schema: {
      tags,
      summary: 'One approval; waitSeconds long-polls until its status or a decision changes',
      params: ApprovalParams,
      querystring: GetApprovalQuery,
      response: { 200: Approval, ...problemResponses },
    },
    handler: async (request) =>
      getApproval(request.deps, tenantOf(request), request.params.approvalId, request.query.waitSeconds ?? 0),
  });

  app.get('/v1/approvals', {
    config: { scope: 'approvals:read' },
    schema: {
      tags,
      summary: 'List approvals, newest first',
      querystring: ListApprovalsQuery,
      response: { 200: ApprovalList, ...problemResponses },
    },
    handler: async (request) => {
      const { status, limit = 50, cursor } = request.query;
      const scope = cursorScope(tenantOf(request), 'approvals', { status });
      const afterId = readAfterId(cursors, scope, cursor);
      const page = await listApprovals(request.deps, tenantOf(request), { status, limit, afterId });
      return pageOf(cursors, scope, page, (a) => a.approvalId);
    },
  });

  app.post('/v1/approvals/:approvalId/cancel', {
    config: { scope: 'approvals:write', idempotent: true },
    schema: {
      tags,
      summary: 'Cancel a pending approval (409 approval_not_pending otherwise)',
      params: ApprovalParams,
      querystring: NoQuery,
      response: { 200: Approval, ...problemResponses },
    },
    handler: async (request) =>
      cancelApproval(request.deps, tenantOf(request), request.params.approvalId, actorOf(request)),
  });
}
