/**
 * The one catalogue of error codes. Every non-2xx response of the API is an RFC 9457
 * problem+json document whose `code` is one of these keys; status and title come from here.
 */
export const ERRORS = {
  invalid_request: { status: 400, title: 'The request is malformed or fails validation' },
  invalid_cursor: { status: 400, title: 'The pagination cursor is invalid or was not issued for this query' },
  unauthorized: { status: 401, title: 'A valid API key is required' },
  insufficient_scope: { status: 403, title: 'The API key lacks the scope this route requires' },
  forbidden: { status: 403, title: 'This action is not allowed' },
  not_found: { status: 404, title: 'No such resource' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  idempotency_conflict: { status: 409, title: 'The Idempotency-Key was used with a different request' },
  registration_expired: { status: 410, title: 'The registration ceremony has expired or was already used' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  uri_too_long: { status: 414, title: 'The request URI is too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  registration_rejected: { status: 422, title: 'The authenticator registration was rejected' },
  policy_violation: { status: 422, title: 'The request violates the tenant policy' },
  rate_limited: { status: 429, title: 'Too many requests' },
  quota_exceeded: { status: 429, title: 'The monthly quota is exhausted' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'The service is temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The `type` URI of a problem document: stable, one per code. */
export function problemType(code: ErrorCode): string {
  return `https://presence.dev/problems/${code.replaceAll('_', '-')}`;
}
