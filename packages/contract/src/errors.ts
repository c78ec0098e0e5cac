/**
 * The one catalogue of error codes. Every non-2xx response of the API is an RFC 9457
 * problem+json document whose `code` is one of these keys; status and title come from here,
 * and the page at `type` shows the cause and the remedy.
 */
export const ERRORS = {
  invalid_request: {
    status: 400,
    title: 'The request is malformed or fails validation',
    cause:
      'A body, query or path parameter failed validation: a missing or extra field, a wrong type (no coercion: `"60"` is not a number), a bad format or an impossible range. `errors[]` names each field as `body/…`, `querystring/…` or `params/…`.',
    remedy: 'Fix the named fields and send the request again; it changed nothing.',
  },
  invalid_cursor: {
    status: 400,
    title: 'The pagination cursor is invalid or was not issued for this query',
    cause:
      'The `cursor` was altered, expired with a key change, or was issued for another query (other filters or another tenant).',
    remedy: 'Start again from the first page without `cursor`, with the same filters on every page.',
  },
  unauthorized: {
    status: 401,
    title: 'A valid API key is required',
    cause:
      'No `Authorization: Bearer <API key>` header, or the key is unknown, revoked or past its rotation grace period.',
    remedy: 'Send a current API key. Keys are shown once when created; an owner can create a new one.',
  },
  insufficient_scope: {
    status: 403,
    title: 'The API key lacks the scope this route requires',
    cause:
      'The API key is valid but lacks the scope this route requires (for example `presence:verify` or `webhooks:manage`).',
    remedy: 'Use a key that holds the scope named in `detail`, or create one with it.',
  },
  forbidden: {
    status: 403,
    title: 'This action is not allowed',
    cause:
      'The caller is authenticated but this action is not allowed for it (for example a key minting scopes it does not hold itself).',
    remedy: 'Use a key or member role that is allowed to do it.',
  },
  not_found: {
    status: 404,
    title: 'No such resource',
    cause:
      'No such route, or no resource with this id in your tenant. Resources of other tenants are reported as not found too.',
    remedy:
      'Check the path and the id; ids are prefixed by their kind (`chl_`, `rct_`, `cred_`, `key_`, `whe_`, …).',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    cause: 'The route exists but not with this HTTP method.',
    remedy: 'Use a method the route supports; see /docs.',
  },
  conflict: {
    status: 409,
    title: 'The request conflicts with the current state',
    cause:
      "The request is valid but conflicts with the resource's current state (for example rotating a key that was revoked).",
    remedy: 'Read the resource, then decide; retrying the same request gives the same answer.',
  },
  approval_not_pending: {
    status: 409,
    title: 'The approval is no longer pending',
    cause:
      'The approval was already approved, rejected, cancelled, or it expired: only a pending approval can be cancelled or decided.',
    remedy:
      'Read the approval with GET /v1/approvals/{approvalId}; create a new approval if the action is still wanted.',
  },
  approval_decision_refused: {
    status: 403,
    title: 'This passkey cannot decide this approval',
    cause:
      "The passkey verified, but its subject is not a listed approver, is the approval's initiator, or already decided this approval. The receipt that was issued stays valid evidence of the attempt; it does not count toward the approval.",
    remedy:
      'Let an approver who has not decided yet use their own passkey; the initiator never approves their own request.',
  },
  action_already_approved: {
    status: 409,
    title: 'This action was already approved',
    cause:
      'The policy rule `uniqueActions` is on and this `actionHashHex` already has a PRESENCE_VERIFIED receipt or an approved approval in this tenant (named in `detail`), or one being decided right now.',
    remedy:
      'Do not repeat the action; if it is really a new one, make the action differ (for example with a request id field).',
  },
  idempotency_conflict: {
    status: 409,
    title: 'The Idempotency-Key was used with a different request',
    cause:
      'This `Idempotency-Key` was already used with a different request (another route or body), or that request is still running.',
    remedy: 'Use a new key for a new request; reuse a key only to retry the very same request.',
  },
  registration_expired: {
    status: 410,
    title: 'The registration ceremony has expired or was already used',
    cause: 'The registration ceremony (`registrationId`) expired or was already completed.',
    remedy: 'Request new options with POST /v1/presence/credentials/options and run the ceremony again.',
  },
  link_expired: {
    status: 410,
    title: 'The approval or enrollment link has expired or was already used',
    cause:
      'The link in the path was valid once, but its approval is no longer pending (approved, rejected, expired or cancelled) or its enrollment link expired or already enrolled a passkey.',
    remedy: 'Ask whoever sent the link for a new one; an approval that is still wanted needs a new request.',
  },
  payload_too_large: {
    status: 413,
    title: 'The request body is too large',
    cause: 'The request body is larger than the service accepts (1 MiB unless the operator changed it).',
    remedy: 'Send a smaller body; no API request needs more.',
  },
  uri_too_long: {
    status: 414,
    title: 'The request URI is too long',
    cause: 'A path parameter is longer than any valid id.',
    remedy: 'Check the id you put in the path.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported content type',
    cause:
      'The body is not `application/json` (for example `text/plain` or a form), or its charset is not UTF-8.',
    remedy: 'Send the body as UTF-8 JSON with `Content-Type: application/json`.',
  },
  registration_rejected: {
    status: 422,
    title: 'The authenticator registration was rejected',
    cause:
      "The authenticator's registration response failed a check: origin, rpId, challenge, user verification, attestation, algorithm or the tenant policy.",
    remedy:
      'Read `detail`; most often the page runs on an origin the policy does not allow, or the authenticator cannot do user verification.',
  },
  policy_violation: {
    status: 422,
    title: 'The request violates the tenant policy',
    cause:
      'The request is well formed but the tenant policy forbids it (for example a challenge TTL above the policy maximum).',
    remedy: 'Change the request, or have an owner change the policy with PUT /v1/policy.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    cause:
      'Too many requests from this API key (or, without a valid key, from this address) in the current window.',
    remedy:
      'Wait for the seconds in `Retry-After`, then retry; spread the load or ask the operator for a higher limit.',
  },
  quota_exceeded: {
    status: 429,
    title: 'The monthly quota is exhausted',
    cause: "The tenant's plan allows no more challenges this billing period.",
    remedy: 'Wait for the next period (see `Retry-After`) or move to a plan with a higher quota.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    cause:
      'The service failed in a way it did not expect. Nothing you sent was wrong, and no change was half made.',
    remedy: 'Retry later; if it persists, report the `requestId` to the operator.',
  },
  service_unavailable: {
    status: 503,
    title: 'The service is temporarily unavailable',
    cause: 'A dependency of the service (its database) is unavailable or the instance is shutting down.',
    remedy: 'Retry after `Retry-After` seconds; with an Idempotency-Key a retry is always safe.',
  },
} as const satisfies Record<string, { status: number; title: string; cause: string; remedy: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The path of the page (served by every Presence instance) that explains a code. */
export function problemPath(code: ErrorCode): string {
  return `/problems/${code.replaceAll('_', '-')}`;
}

/**
 * The `type` URI of a problem document: one per code, on the instance that answered (`origin`
 * like `https://presence.example.com`), so that it resolves to the page describing the code.
 * Match problems on `code`, which is the same everywhere; `type` follows the host.
 */
export function problemType(code: ErrorCode, origin: string): string {
  return `${origin}${problemPath(code)}`;
}
