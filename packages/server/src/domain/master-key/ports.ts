/**
 * Every value sealed with the master key (domain/secrets.ts), by kind. Storage maps a kind to its
 * table and column; reseal-secrets.ts maps it to the associated data it was sealed with. A new
 * sealed column is one entry in each.
 */
export type SealedKind =
  | 'signing-key'
  | 'receipt-log-key'
  | 'webhook-secret'
  | 'webhook-previous-secret'
  | 'idempotency-response'
  | 'console-change-link';

export interface SealedValue {
  /** The row's primary key, column by column. */
  key: string[];
  sealed: string;
}

export interface SealedSecretRepo {
  /** Up to `limit` sealed values of a kind in key order, after `afterKey` (exclusive). */
  list(kind: SealedKind, afterKey: string[] | undefined, limit: number): Promise<SealedValue[]>;
  /** Replaces `expected` by `sealed`; false when the row changed meanwhile (it was sealed anew). */
  replace(kind: SealedKind, key: string[], expected: string, sealed: string): Promise<boolean>;
}
