/** A field the API named as wrong (problem+json `errors`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A failed API call. HTTP failures carry the RFC 9457 problem document the service sent:
 * `status`, the stable `code` (docs/api-contract.md#9-errors), `detail` and the `requestId` to quote in reports.
 * Denied presence checks are not errors: they are 200 responses with a denial `decision`.
 */
export class PresenceApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly requestId: string | undefined;
  readonly errors: FieldProblem[];
  /** The problem `type` URI, when the service sent one. */
  readonly type: string | undefined;

  constructor(
    init: {
      status: number;
      code: string;
      detail: string;
      requestId?: string | undefined;
      errors?: FieldProblem[] | undefined;
      type?: string | undefined;
    },
    options?: { cause?: unknown },
  ) {
    const where = init.requestId === undefined ? '' : ` (requestId ${init.requestId})`;
    super(`${init.status === 0 ? '' : `${init.status} `}${init.code}: ${init.detail}${where}`, options);
    this.name = 'PresenceApiError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.type = init.type;
  }
}

/**
 * No HTTP response at all after every retry: the connection failed (`code` "network_error") or
 * an attempt ran past `timeoutMs` ("timeout"). `status` is 0. For a create, the service may or
 * may not have committed it: retry with the same `idempotencyKey` to find out without doubling.
 */
export class PresenceNetworkError extends PresenceApiError {
  readonly attempts: number;

  constructor(code: 'network_error' | 'timeout', detail: string, attempts: number, cause: unknown) {
    super({ status: 0, code, detail }, { cause });
    this.name = 'PresenceNetworkError';
    this.attempts = attempts;
  }
}

/** Builds the error of a non-2xx response from its problem+json body (or whatever came instead). */
export function errorFromProblem(status: number, headers: Headers, text: string): PresenceApiError {
  let problem: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) problem = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the status and a snippet.
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return new PresenceApiError({
    status,
    code: str(problem.code) ?? `http_${status}`,
    detail: str(problem.detail) ?? (text.slice(0, 200) || 'no detail'),
    requestId: str(problem.requestId) ?? headers.get('x-request-id') ?? undefined,
    errors: Array.isArray(problem.errors) ? (problem.errors as FieldProblem[]) : undefined,
    type: str(problem.type),
  });
}
