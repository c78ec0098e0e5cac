/**
 * The Store aggregate: what the domain needs from storage, one member per area. Each area declares
 * its own records and repositories in `<area>/ports.ts`; storage implements `Store` (SQLite and
 * PostgreSQL, one behavioural suite); compose.ts provides the clock and randomness.
 * All times are Unix epoch milliseconds (integers).
 */
import type { ApiKeyRepo } from './api-keys/ports.js';
import type { BillingRepos } from './billing/ports.js';
import type { CredentialRepo, RegistrationRepo } from './credentials/ports.js';
import type { OutboxRepo } from './events/ports.js';
import type { ExportRepo } from './exports/ports.js';
import type { IdempotencyRepo } from './idempotency/ports.js';
import type { PolicyRepo } from './policy/ports.js';
import type { ChallengeRepo, PresenceHotPath } from './presence/ports.js';
import type { ReceiptRepo, SigningKeyRepo } from './receipts/ports.js';
import type { RetentionRepo } from './retention/ports.js';
import type { SealedSecretRepo } from './master-key/ports.js';
import type { ReceiptLogRepo } from './receipts/receipt-log-ports.js';
import type { TenantRepo } from './tenants/ports.js';
import type { UsageRepo } from './usage/ports.js';
import type { WebhookRepos } from './webhooks/ports.js';
import type { ReceiptLogStore } from './receipt-log/ports.js';
import type { ConsoleRepos } from './console/ports.js';
import type { ApprovalRepos } from './approvals/ports.js';

export interface Clock {
  now(): number;
}

export interface Random {
  bytes(length: number): Buffer;
}

export interface PageRequest {
  limit: number;
  /** Exclusive keyset bound: the last id of the previous page. */
  afterId?: string | undefined;
}

export interface StoreTx {
  tenants: TenantRepo;
  apiKeys: ApiKeyRepo;
  policies: PolicyRepo;
  registrations: RegistrationRepo;
  credentials: CredentialRepo;
  challenges: ChallengeRepo;
  /** The verify hot path over the same tables (compiled statements, fewer round trips). */
  presence: PresenceHotPath;
  receipts: ReceiptRepo;
  signingKeys: SigningKeyRepo;
  outbox: OutboxRepo;
  usage: UsageRepo;
  billing: BillingRepos;
  receiptLog: ReceiptLogRepo;
  /** The Merkle tree, checkpoints and cosignatures of each tenant's receipt log. */
  receiptLogTree: ReceiptLogStore;
  exports: ExportRepo;
  webhooks: WebhookRepos;
  idempotency: IdempotencyRepo;
  retention: RetentionRepo;
  sealedSecrets: SealedSecretRepo;
  console: ConsoleRepos;
  /** Approvals, their approvers' decisions, approval sets, ceremony challenges, enrollment links. */
  approvals: ApprovalRepos;
}

export interface Store extends StoreTx {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs `fn` in one database transaction: all of its writes commit together or not at all. */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` where each write statement commits on its own: on PostgreSQL in autocommit, so the
   * per-tenant rows a statement locks are free at its end, not after another round trip for
   * COMMIT. Only for work whose every write is ONE self-contained statement (a compare-and-set
   * that writes all or nothing), so that stopping between two statements leaves nothing half
   * done: the verify settle, the challenge creation. SQLite alike, with each of the hot path's
   * write sets as one atomic program on its writer thread (an in-memory database runs `fn` as one
   * transaction). Inside an idempotent request it is that request's one transaction, like
   * `transaction`. docs/adr/0010-verify-hot-path.md, docs/adr/0017-sqlite-writer-thread.md.
   */
  selfContainedWrites<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by storage when a unique constraint rejects an insert. */
export class UniqueViolation extends Error {
  constructor(
    readonly constraint: string,
    options?: { cause?: unknown },
  ) {
    super(`unique constraint violated: ${constraint}`, options);
    this.name = 'UniqueViolation';
  }
}
