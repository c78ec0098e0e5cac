import {
  ChallengeCreated,
  ChallengeParams,
  ChallengeView,
  CreateChallengeBody,
  DENIAL_REMEDIES,
  NoQuery,
  SignedReceipt,
  VerifyBody,
  VerifyResult,
} from '@presence/contract';
import { createChallenge } from '../../domain/presence/create-challenge.js';
import { getChallenge } from '../../domain/presence/get-challenge.js';
import { verifyPresence } from '../../domain/presence/verify-presence.js';
import { getChallengeReceipt } from '../../domain/receipts/get-receipt.js';
import { observeDecision } from '../observe-decision.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

export function presenceRoutes(app: App, { metrics }: RouteDeps): void {
  app.post('/v1/presence/challenge', {
    config: { scope: 'challenges:write', idempotent: true },
    schema: {
      tags: ['presence'],
      summary: 'Issue a single-use challenge bound to an action hash',
      body: CreateChallengeBody,
      response: { 201: ChallengeCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await createChallenge(request.deps, tenantOf(request), request.body)),
  });

  app.post('/v1/presence/verify', {
    config: { scope: 'presence:verify', idempotent: true },
    schema: {
      tags: ['presence'],
      summary: 'Verify an assertion: exactly one decision per challenge',
      description: 'Denials are 200 responses; act only when decision is PRESENCE_VERIFIED.',
      body: VerifyBody,
      response: { 200: VerifyResult, ...problemResponses },
    },
    handler: async (request) => {
      const started = performance.now();
      const tenantId = tenantOf(request);
      const result = await verifyPresence(request.deps, tenantId, request.body);
      observeDecision(metrics, request, tenantId, result, started);
      return result.decision === 'PRESENCE_VERIFIED'
        ? result
        : { ...result, remedy: DENIAL_REMEDIES[result.decision] };
    },
  });

  app.get('/v1/presence/challenges/:challengeId', {
    config: { scope: 'challenges:read' },
    schema: {
      tags: ['presence'],
      summary: 'Read a challenge and its decision',
      params: ChallengeParams,
      querystring: NoQuery,
      response: { 200: ChallengeView, ...problemResponses },
    },
    handler: async (request) => getChallenge(request.deps, tenantOf(request), request.params.challengeId),
  });

  app.get('/v1/presence/challenges/:challengeId/receipt', {
    config: { scope: 'receipts:read' },
    schema: {
      tags: ['receipts'],
      summary: 'The receipt of a verified challenge (404 when none)',
      params: ChallengeParams,
      querystring: NoQuery,
      response: { 200: SignedReceipt, ...problemResponses },
    },
    handler: async (request) =>
      getChallengeReceipt(request.deps, tenantOf(request), request.params.challengeId),
  });
}
