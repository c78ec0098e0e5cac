import type { ApiKeyCache } from './api-keys/api-key-cache.js';
import type { BillingSettings } from './billing/billing-settings.js';
import type { HeapBudget } from './exports/ports.js';
import type { PlanCache } from './billing/plan-cache.js';
import type { CurrentPolicyCache, PolicyCache } from './policy/policy-cache.js';
import type { Clock, Random, Store } from './ports.js';
import type { SecretBox } from './secrets.js';
import type { ReceiptSigner } from './receipts/receipt-signer.js';
import type { PublicKeyCache } from './webauthn/public-key-cache.js';
import type { WebhookTransport } from './webhooks/ports.js';
import type { ApprovalWaiters } from './approvals/approval-waiters.js';

/** Everything a domain function may use, passed explicitly: `(deps, input)`. */
export interface Deps {
  store: Store;
  clock: Clock;
  random: Random;
  secrets: SecretBox;
  signer: ReceiptSigner;
  publicKeys: PublicKeyCache;
  /** Authenticated API keys, for a few seconds (api-keys/api-key-cache.ts). */
  apiKeys: ApiKeyCache;
  /** Immutable policy versions (policy/policy-cache.ts). */
  policies: PolicyCache;
  /** Each tenant's current policy, for new challenges, for a few seconds (policy/policy-cache.ts). */
  currentPolicies: CurrentPolicyCache;
  /** Plan assignments in force, for new challenges' quota, for a few seconds (billing/plan-cache.ts). */
  plans: PlanCache;
  /** Resolves, checks and calls webhook URLs (SSRF policy included). */
  webhooks: WebhookTransport;
  /** Default plan, close grace window, operator token (domain/billing). */
  billing: BillingSettings;
  /** Origin prefix of receipt-log checkpoints: `<logOrigin>/presence/<tenantId>` (PRESENCE_LOG_ORIGIN). */
  logOrigin: string;
  /** Asks for a full garbage collection when a long export has grown the heap (heap-budget.ts). */
  heapBudget: HeapBudget;
  /** Long polls of approvals in this process, woken by decisions made in this process. */
  approvalWaiters: ApprovalWaiters;
}
