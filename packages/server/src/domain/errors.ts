import type { ErrorCode } from '@presence/contract';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * A refusal the caller can act on. The HTTP layer turns it into problem+json using the error
 * catalogue in @presence/contract. Expected outcomes (a denied presence check) are data, not this.
 */
export class DomainError extends Error {
  /** When the caller may try again (the HTTP layer sends it as Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly fields: FieldError[] = [],
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(detail, options);
    this.name = 'DomainError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} was not found`);
}
