import { ERRORS, problemType, type ErrorCode } from '@presence/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldError } from '../../domain/errors.js';
import type { App } from '../types.js';

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  code: ErrorCode,
  detail: string,
  errors: FieldError[] = [],
) {
  const { status, title } = ERRORS[code];
  const body: Record<string, unknown> = {
    type: problemType(code, requestOrigin(request)),
    title,
    status,
    code,
    detail,
    requestId: request.id,
  };
  if (errors.length > 0) body.errors = errors;
  return reply.code(status).type('application/problem+json').serializer(JSON.stringify).send(body);
}

/** `https://host[:port]` as the caller reached this instance (proxy headers only with trustProxy). */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** Fastify's own 4xx errors, by their stable `code`, never by message text. */
const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_request',
  FST_ERR_VALIDATION: 'invalid_request',
};

function statusToCode(status: number): ErrorCode {
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  return 'invalid_request';
}

function validationErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const missing =
      v.keyword === 'required'
        ? `/${String((v.params as { missingProperty?: string }).missingProperty)}`
        : '';
    const extra =
      v.keyword === 'additionalProperties'
        ? `/${String((v.params as { additionalProperty?: string }).additionalProperty)}`
        : '';
    return { field: `${context}${v.instancePath}${missing}${extra}`, message: v.message ?? v.keyword };
  });
}

/** Errors the router raises before any route runs (bad URL encoding, overlong parameters). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendProblem(reply, request, 'uri_too_long', 'a path parameter is longer than any valid id');
  }
  return sendProblem(reply, request, 'invalid_request', 'the URL is not validly percent-encoded');
}

export interface ProblemOf {
  code: ErrorCode;
  detail: string;
  errors: FieldError[];
  retryAfterSeconds?: number | undefined;
}

/** What problem an error thrown by a route is (the portal renders the same one as a page). */
export function problemOf(error: FastifyError): ProblemOf | undefined {
  if (error instanceof DomainError) {
    return {
      code: error.code,
      detail: error.detail,
      errors: error.fields,
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  if (error.validation) {
    const errors = validationErrors(error);
    const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return { code: 'invalid_request', detail, errors };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { code: FRAMEWORK_CODES[error.code] ?? statusToCode(status), detail: error.message, errors: [] };
  }
  return undefined;
}

/** One envelope for every failure: RFC 9457 problem+json with a stable code. */
export function registerProblemHandlers(app: App): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = problemOf(error);
    if (problem) {
      if (problem.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(problem.retryAfterSeconds));
      return sendProblem(reply, request, problem.code, problem.detail, problem.errors);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      reply,
      request,
      'internal_error',
      'an internal error occurred; quote the requestId when reporting it',
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, request, 'not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
  );
}
