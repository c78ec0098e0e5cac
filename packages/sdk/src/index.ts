/**
 * The universal entry of @presence/sdk: browsers, Node 20+, Deno, Bun, edge runtimes. Nothing
 * here may import `node:` modules (client/browser-bundle.test.ts bundles it for the browser and
 * fails otherwise); Node-only code (receipt and pack verification, the challenge construction)
 * is exported from `@presence/sdk/node`, which re-exports this entry too.
 */
export { canonicalJson } from './canonical-json.js';
export { computeActionHash } from './compute-action-hash.js';
export { createPresenceClient } from './client/create-presence-client.js';
export type { PresenceClient, PresenceClientOptions } from './client/create-presence-client.js';
export type { ExportDownload } from './client/build-presence-resources.js';
export type { WaitOptions } from './client/build-approval-resources.js';
export { PresenceApiError, PresenceNetworkError } from './client/errors.js';
export { PresenceUsageError } from './usage-error.js';
export type { FieldProblem } from './client/errors.js';
export { newIdempotencyKey } from './client/http-transport.js';
export type { CallOptions, CreateOptions } from './client/http-transport.js';
export { isPresenceVerified } from './client/is-presence-verified.js';
export type { VerifiedResult } from './client/is-presence-verified.js';
export { PageIterator } from './client/page-iterator.js';
export type * from './client/wire-types.js';
