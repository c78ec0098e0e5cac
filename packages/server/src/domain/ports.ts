/**
 * What the domain needs from the outside world. Storage implements `Store` (SQLite and
 * PostgreSQL, one behavioural suite); compose.ts provides the clock and randomness.
 * All times are Unix epoch milliseconds (integers).
 */
import type { Decision, PolicyRules, Scope } from '@presence/contract';
import type { WebhookRepos } from './webhooks/ports.js';
import type { IdempotencyRepo } from './idempotency/ports.js';
import type { BillingRepos } from './billing/billing-ports.js';
import type { ExportRepo } from './exports/export-ports.js';
import type { ReceiptLogRepo } from './receipts/receipt-log-ports.js';
import type { ConsoleRepos } from './console/ports.js';

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

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  /** Hex SHA-256 of the whole secret; the secret itself is never stored. */
  keyHash: string;
  scopes: Scope[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface PolicyRecord {
  id: string;
  tenantId: string;
  version: number;
  rules: PolicyRules;
  /** SHA-256 over the RFC 8785 bytes of `rules`. */
  hashHex: string;
  createdAt: number;
}

export interface RegistrationRecord {
  id: string;
  tenantId: string;
  subject: string;
  challengeB64Url: string;
  userIdB64Url: string;
  policyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface CredentialRecord {
  id: string;
  tenantId: string;
  /** The WebAuthn credential id, base64url. Unique per tenant. */
  credentialId: string;
  subject: string;
  /** COSE_Key bytes, base64url, exactly as the authenticator produced them. */
  publicKeyB64Url: string;
  algorithm: number;
  signCount: number;
  aaguid: string;
  transports: string[];
  backupEligible: boolean;
  backedUp: boolean;
  attestationFormat: string;
  /** Enrollment evidence, kept verbatim. */
  attestationObjectB64Url: string;
  clientDataJSONB64Url: string;
  registrationId: string;
  policyId: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export type ChallengeStatus = 'pending' | 'verified' | 'denied' | 'expired';

export interface ChallengeRecord {
  id: string;
  tenantId: string;
  actionHashHex: string;
  subject: string | null;
  purpose: string | null;
  nonceB64Url: string;
  challengeB64Url: string;
  /** WebAuthn credential ids (base64url) offered in allowCredentials; empty when no subject. */
  allowCredentialIds: string[];
  policyId: string;
  createdAt: number;
  expiresAt: number;
  status: ChallengeStatus;
  usedAt: number | null;
  decision: Decision | null;
  reason: string | null;
  receiptId: string | null;
  credentialRef: string | null;
}

export interface ChallengeSettlement {
  status: Exclude<ChallengeStatus, 'pending'>;
  usedAt: number;
  decision: Decision;
  reason: string | null;
  receiptId: string | null;
  credentialRef: string | null;
}

export interface ReceiptRecord {
  id: string;
  tenantId: string;
  challengeId: string;
  credentialRef: string;
  subject: string;
  actionHashHex: string;
  issuedAt: number;
  /** The receipt's RFC 8785 canonical JSON text, exactly the bytes that were hashed and signed. */
  canonicalJson: string;
  hashHex: string;
  kid: string;
  signatureB64Url: string;
}

export interface SigningKeyRecord {
  kid: string;
  /** Raw 32-byte Ed25519 public key, base64url. */
  publicKeyB64Url: string;
  /** PKCS#8 private key sealed with the master key (see domain/secrets.ts). */
  privateKeySealed: string;
  createdAt: number;
  notBefore: number;
  notAfter: number | null;
  status: 'active' | 'retired';
}

export interface OutboxEventRecord {
  id: string;
  tenantId: string;
  type: string;
  payload: unknown;
  createdAt: number;
}

export interface UsageEventRecord {
  id: string;
  tenantId: string;
  meter: string;
  quantity: number;
  occurredAt: number;
  /** The business row that caused it; (meter, sourceId) is unique, so nothing counts twice. */
  sourceId: string;
}

export interface TenantRepo {
  insert(t: TenantRecord): Promise<void>;
  get(id: string): Promise<TenantRecord | undefined>;
  list(): Promise<TenantRecord[]>;
}

export interface ApiKeyRepo {
  insert(k: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  get(tenantId: string, id: string): Promise<ApiKeyRecord | undefined>;
  list(tenantId: string, page: PageRequest): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt (when still null) or moves expiresAt earlier; returns the updated row. */
  update(
    tenantId: string,
    id: string,
    change: { revokedAt?: number; expiresAt?: number },
  ): Promise<ApiKeyRecord | undefined>;
  touch(id: string, at: number): Promise<void>;
}

export interface PolicyRepo {
  insert(p: PolicyRecord): Promise<void>;
  current(tenantId: string): Promise<PolicyRecord | undefined>;
  /** Newest version first. */
  history(tenantId: string, limit: number): Promise<PolicyRecord[]>;
  get(tenantId: string, id: string): Promise<PolicyRecord | undefined>;
}

export interface RegistrationRepo {
  insert(r: RegistrationRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<RegistrationRecord | undefined>;
  /** Marks it used only if unused; false when another call got there first. */
  consume(tenantId: string, id: string, at: number): Promise<boolean>;
}

export interface CredentialRepo {
  /** Throws UniqueViolation when the tenant already has this WebAuthn credential id. */
  insert(c: CredentialRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<CredentialRecord | undefined>;
  getByCredentialId(tenantId: string, credentialId: string): Promise<CredentialRecord | undefined>;
  list(
    tenantId: string,
    filter: { subject?: string | undefined; includeRevoked: boolean },
    page: PageRequest,
  ): Promise<CredentialRecord[]>;
  revoke(tenantId: string, id: string, at: number): Promise<CredentialRecord | undefined>;
  /**
   * Records a successful assertion only if the credential is still active and its counter is
   * still `expectedSignCount` (compare-and-set); false otherwise.
   */
  recordUse(
    id: string,
    use: { expectedSignCount: number; signCount: number; backedUp: boolean; at: number },
  ): Promise<boolean>;
}

export interface ChallengeRepo {
  insert(c: ChallengeRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<ChallengeRecord | undefined>;
  /** Settles a pending challenge; false when it was no longer pending (someone else decided). */
  settle(tenantId: string, id: string, s: ChallengeSettlement): Promise<boolean>;
}

export interface ReceiptRepo {
  /**
   * Stores the receipt and returns its `seq`, taken from the tenant's counter row (which stays
   * locked until commit, so seq order is commit order). Call it inside store.transaction.
   */
  insert(r: ReceiptRecord): Promise<number>;
  get(tenantId: string, id: string): Promise<ReceiptRecord | undefined>;
  getByChallenge(tenantId: string, challengeId: string): Promise<ReceiptRecord | undefined>;
}

export interface SigningKeyRepo {
  insert(k: SigningKeyRecord): Promise<void>;
  list(): Promise<SigningKeyRecord[]>;
  retire(kid: string, at: number): Promise<void>;
}

export interface OutboxRepo {
  insert(e: OutboxEventRecord): Promise<void>;
}

export interface UsageRepo {
  insert(e: UsageEventRecord): Promise<void>;
}

export interface StoreTx {
  tenants: TenantRepo;
  apiKeys: ApiKeyRepo;
  policies: PolicyRepo;
  registrations: RegistrationRepo;
  credentials: CredentialRepo;
  challenges: ChallengeRepo;
  receipts: ReceiptRepo;
  signingKeys: SigningKeyRepo;
  outbox: OutboxRepo;
  usage: UsageRepo;
  billing: BillingRepos;
  receiptLog: ReceiptLogRepo;
  exports: ExportRepo;
  webhooks: WebhookRepos;
  idempotency: IdempotencyRepo;
  console: ConsoleRepos;
}

export interface Store extends StoreTx {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs `fn` in one database transaction: all of its writes commit together or not at all. */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
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
