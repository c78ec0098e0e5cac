export { createReceiptGuard } from './create-receipt-guard.js';
export type {
  GuardOutcome,
  GuardProblem,
  ReceiptGuard,
  ReceiptGuardOptions,
} from './create-receipt-guard.js';
export { checkEvidence, isApprovalSetEvidence } from './check-evidence.js';
export type { CheckEvidenceOptions, EvidenceReport } from './check-evidence.js';
export { fetchedKeys, pinnedKeys } from './key-source.js';
export type { FetchedKeysOptions, KeySource } from './key-source.js';
export { memorySeenStore, redisSeenStore } from './seen-store.js';
export type { RedisSetClient, SeenStore } from './seen-store.js';
export type { GuardRequest } from './read-evidence.js';
