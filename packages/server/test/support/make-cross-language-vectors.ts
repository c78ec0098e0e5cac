/**
 * Writes the cross-language vectors into conformance/cross-language/ (docs/executor-guards.md,
 * what they hold: cross-language/write-vectors.ts). Run after `npm run build`:
 *   npx vite-node packages/server/test/support/make-cross-language-vectors.ts
 * Re-running replaces every file (new keys, new receipts); commit the result as a whole.
 */
import { writeCrossLanguageVectors } from './cross-language/write-vectors.js';

const OUT = new URL('../../../../conformance/cross-language/', import.meta.url);
await writeCrossLanguageVectors(OUT);
console.log(`wrote the cross-language vectors to ${OUT.pathname}`);
