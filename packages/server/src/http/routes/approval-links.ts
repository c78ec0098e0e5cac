import {
  ApprovalPageState,
  CeremonyOptions,
  CeremonyOptionsBody,
  CredentialCreated,
  DecideBody,
  DecideResult,
  EnrollmentFinishBody,
  EnrollmentLink,
  EnrollmentLinkBody,
  EnrollmentOptions,
  EnrollmentOptionsBody,
  EnrollmentPageState,
  LinkTokenParams,
  NoQuery,
} from '@presence/contract';
import { readApprovalPage } from '../../domain/approvals/approval-page.js';
import { decideApproval } from '../../domain/approvals/decide-approval.js';
import {
  createEnrollmentLink,
  finishLinkEnrollment,
  readEnrollmentPage,
  startLinkEnrollment,
} from '../../domain/approvals/enrollment-links.js';
import { startApprovalCeremony } from '../../domain/approvals/start-approval-ceremony.js';
import { registerLinkLimit } from '../plugins/rate-limit.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

/** Creating enrollment links (API key, scope credentials:write). */
export function enrollmentLinkRoutes(app: App, { links }: RouteDeps): void {
  app.post('/v1/presence/enrollment-links', {
    config: { scope: 'credentials:write', idempotent: true },
    schema: {
      tags: ['credentials'],
      summary: 'A single-use link that enrolls one passkey for a subject on the hosted page',
      body: EnrollmentLinkBody,
      response: { 201: EnrollmentLink, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await createEnrollmentLink(request.deps, tenantOf(request), request.body, links)),
  });
}

const tags = ['approval pages'];
const noStore = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/**
 * The JSON the hosted pages read and post (docs/approvals.md). No API key: the token in the path
 * is the only credential, it lets a person see a request and never decide it without a passkey.
 * Rate-limited per address; answers are never cached and never leak the token as a referrer.
 */
export function approvalLinkRoutes(app: App, { links, rateLimits, metrics }: RouteDeps): void {
  registerLinkLimit(app, rateLimits, metrics);
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(noStore);
    return payload;
  });

  app.get('/approve/:token/state', {
    schema: {
      tags,
      summary: 'What the approval page shows',
      params: LinkTokenParams,
      querystring: NoQuery,
      response: { 200: ApprovalPageState, ...problemResponses },
    },
    handler: async (request) => readApprovalPage(request.deps, request.params.token, links),
  });

  app.post('/approve/:token/options', {
    schema: {
      tags,
      summary: 'Start "Approve with passkey" or "Reject with passkey": WebAuthn request options',
      params: LinkTokenParams,
      querystring: NoQuery,
      body: CeremonyOptionsBody,
      response: { 200: CeremonyOptions, ...problemResponses },
    },
    handler: async (request) =>
      startApprovalCeremony(request.deps, request.params.token, request.body.intent),
  });

  app.post('/approve/:token/decide', {
    schema: {
      tags,
      summary: "Finish the ceremony: verify the passkey and record the approver's decision",
      params: LinkTokenParams,
      querystring: NoQuery,
      body: DecideBody,
      response: { 200: DecideResult, ...problemResponses },
    },
    handler: async (request) => decideApproval(request.deps, request.params.token, request.body, links),
  });

  app.get('/enroll/:token/state', {
    schema: {
      tags,
      summary: 'What the enrollment page shows',
      params: LinkTokenParams,
      querystring: NoQuery,
      response: { 200: EnrollmentPageState, ...problemResponses },
    },
    handler: async (request) => readEnrollmentPage(request.deps, request.params.token, links),
  });

  app.post('/enroll/:token/options', {
    schema: {
      tags,
      summary: "Start enrolling a passkey for the link's subject",
      params: LinkTokenParams,
      querystring: NoQuery,
      body: EnrollmentOptionsBody,
      response: { 200: EnrollmentOptions, ...problemResponses },
    },
    handler: async (request) => startLinkEnrollment(request.deps, request.params.token),
  });

  app.post('/enroll/:token/finish', {
    schema: {
      tags,
      summary: 'Finish enrolling: the link is used once, atomically with the new credential',
      params: LinkTokenParams,
      querystring: NoQuery,
      body: EnrollmentFinishBody,
      response: { 201: CredentialCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await finishLinkEnrollment(request.deps, request.params.token, request.body)),
  });
}
