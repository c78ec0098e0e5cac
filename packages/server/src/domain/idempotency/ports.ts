/** Storage of idempotency keys (migration 0005). Times are epoch milliseconds. */

export interface IdempotencyRecord {
  tenantId: string;
  /** The Idempotency-Key header, exactly as sent. */
  key: string;
  /** SHA-256 of the request it was first used with (see fingerprint-request.ts). */
  fingerprintHex: string;
  method: string;
  /** The route pattern, e.g. `/v1/keys/:keyId/rotate`. */
  route: string;
  /** Null only inside the transaction that inserts the row, until its response is known. */
  statusCode: number | null;
  /** `{statusCode, contentType, body}` sealed with the SecretBox (responses can hold secrets). */
  responseSealed: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyRepo {
  /** Throws UniqueViolation (idempotency_keys_pkey) when the tenant already used the key. */
  insert(record: IdempotencyRecord): Promise<void>;
  get(tenantId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Stores the response on a row inserted earlier in the same transaction. */
  saveResponse(tenantId: string, key: string, statusCode: number, responseSealed: string): Promise<boolean>;
  /** Deletes a batch of about `limit` rows expired at `now` (oldest first); returns how many went. */
  deleteExpired(now: number, limit: number): Promise<number>;
}
