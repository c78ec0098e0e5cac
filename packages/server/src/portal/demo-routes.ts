import {
  ChallengeCreated,
  CredentialCreated,
  ReceiptParams,
  RegisterCredentialBody,
  RegistrationOptions,
  SignedReceipt,
  VerifyBody,
  VerifyResult,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { createRegistrationOptions } from '../domain/credentials/create-registration-options.js';
import { registerCredential } from '../domain/credentials/register-credential.js';
import type { Deps } from '../domain/deps.js';
import { DomainError } from '../domain/errors.js';
import { createChallenge } from '../domain/presence/create-challenge.js';
import { getChallenge } from '../domain/presence/get-challenge.js';
import { verifyPresence } from '../domain/presence/verify-presence.js';
import { getReceipt } from '../domain/receipts/get-receipt.js';
import { problemResponses } from '../http/routes/errors.js';
import type { App } from '../http/types.js';
import { DEMO_PURPOSE, DEMO_SUBJECT_PATTERN, newDemoPayout } from './demo-action.js';

const DemoSubjectBody = Type.Object(
  {
    subject: Type.String({
      pattern: DEMO_SUBJECT_PATTERN,
      description: 'the subject the demo page generated',
    }),
  },
  { additionalProperties: false },
);

const DEMO_SUBJECT = new RegExp(DEMO_SUBJECT_PATTERN);

/** The challenge, with the payout it is bound to (made by the server for this approval only). */
const DemoChallenge = Type.Composite([
  ChallengeCreated,
  Type.Object({
    action: Type.Record(Type.String(), Type.String()),
    canonicalJson: Type.String(),
  }),
]);

/** Whether a challenge of the tenant was made by the demo (its payout, a demo subject); unknown ids pass through. */
async function isForeignChallenge(deps: Deps, tenantId: string, challengeId: string): Promise<boolean> {
  const view = await getChallenge(deps, tenantId, challengeId).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === 'not_found') return undefined;
    throw error;
  });
  if (view === undefined) return false;
  return view.purpose !== DEMO_PURPOSE || !DEMO_SUBJECT.test(view.subject ?? '');
}

/**
 * The demo's backend: what a caller's server does for the development tenant. It calls the
 * domain directly (no API key in the browser) and fixes the action: the browser never names it.
 */
export function demoRoutes(app: App, tenantId: string): void {
  app.post('/demo/api/registration-options', {
    schema: {
      hide: true,
      body: DemoSubjectBody,
      response: { 200: RegistrationOptions, ...problemResponses },
    },
    handler: async (request) =>
      createRegistrationOptions(request.deps, tenantId, {
        subject: request.body.subject,
        displayName: 'Presence demo',
      }),
  });

  app.post('/demo/api/credentials', {
    schema: {
      hide: true,
      body: RegisterCredentialBody,
      response: { 201: CredentialCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ credential: await registerCredential(request.deps, tenantId, request.body) }),
  });

  app.post('/demo/api/challenges', {
    schema: { hide: true, body: DemoSubjectBody, response: { 201: DemoChallenge, ...problemResponses } },
    handler: async (request, reply) => {
      const payout = newDemoPayout(request.deps.random);
      const input = {
        actionHashHex: payout.actionHashHex,
        subject: request.body.subject,
        purpose: DEMO_PURPOSE,
      };
      const challenge = await createChallenge(request.deps, tenantId, input);
      return reply
        .code(201)
        .send({ ...challenge, action: payout.action, canonicalJson: payout.canonicalJson });
    },
  });

  app.post('/demo/api/verify', {
    schema: { hide: true, body: VerifyBody, response: { 200: VerifyResult, ...problemResponses } },
    handler: async (request): Promise<VerifyResult> => {
      const { challengeId } = request.body;
      if (await isForeignChallenge(request.deps, tenantId, challengeId)) {
        return {
          decision: 'CHALLENGE_NOT_FOUND',
          challengeId,
          reason: 'the demo made no challenge with this id',
        };
      }
      const result = await verifyPresence(request.deps, tenantId, request.body);
      request.log.info(
        { challengeId: result.challengeId, decision: result.decision },
        'demo presence decision',
      );
      return result;
    },
  });

  app.get('/demo/api/receipts/:receiptId', {
    schema: { hide: true, params: ReceiptParams, response: { 200: SignedReceipt, ...problemResponses } },
    handler: async (request) => {
      const signed = await getReceipt(request.deps, tenantId, request.params.receiptId);
      if (signed.receipt.purpose !== DEMO_PURPOSE)
        throw new DomainError('not_found', 'no demo receipt has this id');
      return signed;
    },
  });
}
