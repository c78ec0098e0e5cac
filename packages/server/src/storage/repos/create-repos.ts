import type { Kysely } from 'kysely';
import type { StoreTx } from '../../domain/ports.js';
import type { Dialect } from '../open-database.js';
import type { Database } from '../schema.js';
import { createPresenceHotPath, type HotPathLanes } from '../hot-path/presence-hot-path.js';
import { createApiKeyRepo } from './api-keys.js';
import { createApprovalRepos } from './approvals/approval-repos.js';
import { createBillingRepos } from './billing-repos.js';
import { createChallengeRepo } from './challenges.js';
import { createConsoleRepos } from './console.js';
import { createCredentialRepo } from './credentials.js';
import { createExportRepo } from './exports.js';
import { createIdempotencyRepo } from './idempotency.js';
import { createOutboxRepo } from './outbox.js';
import { createPolicyRepo } from './policies.js';
import { createReceiptLogRepo } from './receipt-log.js';
import { createReceiptLogTreeRepo } from './receipt-log-tree.js';
import { createReceiptRepo } from './receipts.js';
import { createRetentionRepo } from './retention.js';
import { createSealedSecretRepo } from './sealed-secrets.js';
import { createRegistrationRepo } from './registrations.js';
import { createSigningKeyRepo } from './signing-keys.js';
import { createTenantRepo } from './tenants.js';
import { createUsageRepo } from './usage.js';
import { createWebhookRepos } from './webhook-repos.js';

export type { HotPathLanes } from '../hot-path/presence-hot-path.js';

/**
 * Every repo over one Kysely handle: the store's own, or a transaction's. Same queries in both
 * dialects. `lanes`: where the hot path's writes go from a handle outside a transaction
 * (PostgreSQL's batched settles, SQLite's writer thread).
 */
export function createRepos(db: Kysely<Database>, dialect: Dialect, lanes?: HotPathLanes): StoreTx {
  return {
    tenants: createTenantRepo(db),
    apiKeys: createApiKeyRepo(db),
    policies: createPolicyRepo(db),
    registrations: createRegistrationRepo(db),
    credentials: createCredentialRepo(db),
    challenges: createChallengeRepo(db),
    presence: createPresenceHotPath(db, dialect, lanes),
    receipts: createReceiptRepo(db),
    signingKeys: createSigningKeyRepo(db),
    outbox: createOutboxRepo(db),
    usage: createUsageRepo(db),
    billing: createBillingRepos(db, dialect),
    webhooks: createWebhookRepos(db),
    receiptLog: createReceiptLogRepo(db),
    receiptLogTree: createReceiptLogTreeRepo(db, dialect),
    exports: createExportRepo(db),
    idempotency: createIdempotencyRepo(db),
    retention: createRetentionRepo(db),
    sealedSecrets: createSealedSecretRepo(db),
    console: createConsoleRepos(db),
    approvals: createApprovalRepos(db),
  };
}
