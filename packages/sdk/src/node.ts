/**
 * The Node-only entry, `@presence/sdk/node`: everything of the universal entry, plus what needs
 * node:crypto — the synchronous action hash, the challenge construction (docs/api-contract.md#2-the-action-is-inside-the-signed-bytes), webhook
 * signature checks and the offline verifiers auditors run. Add Node-only exports here, not to
 * index.ts.
 */
export * from './index.js';
export { computeActionHashSync } from './compute-action-hash-sync.js';
export * from './challenge.js';
export * from './cose-key.js';
export * from './webauthn/client-data.js';
export * from './webauthn/authenticator-data.js';
export * from './verify-receipt.js';
export * from './verify-webhook.js';
export { sha256 } from './encoding.js';
export * from './pack/index.js';
export * from './log/index.js';
export * from './witness/index.js';
export * from './verify-approval-set.js';
export * from './guard/index.js';
