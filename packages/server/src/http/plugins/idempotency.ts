import { ERRORS, problemType, type ErrorCode } from '@presence/contract';
import { requestOrigin } from './problem.js';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { fingerprintRequest } from '../../domain/idempotency/fingerprint-request.js';
import {
  readIdempotentOutcome,
  type IdempotentRequest,
  type KnownOutcome,
} from '../../domain/idempotency/read-idempotent-outcome.js';
import {
  IdempotencyKeyTaken,
  startIdempotentExecution,
} from '../../domain/idempotency/start-idempotent-execution.js';
import { tenantOf, type App } from '../types.js';

/** RFC 9110 token-ish: 1 to 255 visible ASCII characters (no spaces, so no joined duplicates). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Documents the header in /openapi.json and validates it like the rest of the request. */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Makes the request safe to retry: the first response is stored for 24 h and replayed to retries with the same key and body',
    }),
  ),
});

/**
 * Idempotency-Key on routes with `config.idempotent`. A key is scoped to the tenant and bound to
 * the request it was first used with (method, route, API key, parameters, body). The first use
 * runs the route and stores its response (2xx and definitive 4xx; never 5xx, 408, 409, 425 or
 * 429) in the transaction of its change; later uses with the same request get that response again with
 * `Idempotent-Replayed: true`, with another request 409 idempotency_conflict. Without the header
 * the route runs as usual. See docs/adr/0004-idempotency-keys.md. A keyed request's handler gets
 * the execution's deps as `request.deps` (registerRequestDeps sets the service's before).
 */
export function registerIdempotency(app: App, deps: Deps): void {
  app.decorateRequest('idempotency', null);
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    route.schema = { ...route.schema, headers: IdempotencyHeaders };
    route.handler = idempotentHandler(deps, route.url, route.handler as RouteHandlerMethod);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const execution = request.idempotency;
    if (!execution) return payload;
    request.idempotency = null;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    let outcome: Awaited<ReturnType<typeof execution.finish>>;
    try {
      outcome = await execution.finish({
        statusCode: body === null ? 500 : reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? 'application/json'),
        body: body ?? '',
      });
    } catch (error) {
      // Recording an outcome that changed nothing failed: answer it unrecorded (a retry runs again).
      request.log.warn({ err: error }, 'idempotency key not recorded');
      return payload;
    }
    if (outcome.kind === 'stored' || (outcome.kind === 'not-stored' && body !== null)) return payload;
    if (outcome.kind === 'failed') request.log.error({ err: outcome.error }, 'idempotent commit failed');
    return rewrite(
      request,
      reply,
      outcome.kind === 'failed' || outcome.kind === 'not-stored' ? { kind: 'in-progress' } : outcome,
    );
  });
}

function idempotentHandler(deps: Deps, route: string, handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function (this: ThisParameterType<RouteHandlerMethod>, request, reply) {
    const key = request.headers['idempotency-key'];
    if (key === undefined) return handler.call(this, request, reply);
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      const message = 'must be 1 to 255 visible ASCII characters, sent once';
      return reply.send(problem(request, reply, 'invalid_request', `Idempotency-Key ${message}`, message));
    }
    const idempotent: IdempotentRequest = {
      tenantId: tenantOf(request),
      key,
      fingerprintHex: fingerprintRequest({
        method: request.method,
        route,
        apiKeyId: request.auth?.keyId ?? '',
        params: request.params,
        body: request.body,
      }),
      method: request.method,
      route,
    };
    const known = await readIdempotentOutcome(deps, idempotent);
    if (known) return reply.send(rewrite(request, reply, known));
    const execution = startIdempotentExecution(request.deps, idempotent);
    request.idempotency = execution;
    request.deps = execution.deps;
    try {
      return await handler.call(this, request, reply);
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken)) throw error;
      request.idempotency = null;
      const winner = (await readIdempotentOutcome(deps, idempotent)) ?? { kind: 'in-progress' as const };
      return reply.send(rewrite(request, reply, winner));
    }
  };
}

/** Turns the reply into a replay of a stored response, or into the problem a known use implies. */
function rewrite(request: FastifyRequest, reply: FastifyReply, outcome: KnownOutcome): string {
  if (outcome.kind === 'replay') {
    reply.code(outcome.response.statusCode);
    reply.header('content-type', outcome.response.contentType);
    reply.header('idempotent-replayed', 'true');
    reply.serializer((body: unknown) => body as string);
    return outcome.response.body;
  }
  if (outcome.kind === 'conflict') {
    const detail = `this Idempotency-Key was already used for a different request (${outcome.method} ${outcome.route}, or another API key) in the last 24 hours; use a new key for a new request`;
    return problem(request, reply, 'idempotency_conflict', detail);
  }
  reply.header('retry-after', '1');
  return problem(
    request,
    reply,
    'service_unavailable',
    'a request with this Idempotency-Key is being processed or failed to commit; retry it',
  );
}

/** A problem+json document set on the reply (the onSend hook cannot go through sendProblem). */
function problem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  field?: string,
): string {
  const { status, title } = ERRORS[code];
  reply.code(status);
  reply.header('content-type', 'application/problem+json');
  reply.serializer((body: unknown) => body as string);
  const errors =
    field === undefined ? {} : { errors: [{ field: 'headers/idempotency-key', message: field }] };
  return JSON.stringify({
    type: problemType(code, requestOrigin(request)),
    title,
    status,
    code,
    detail,
    requestId: request.id,
    ...errors,
  });
}
