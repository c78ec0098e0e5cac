import { DECISIONS, type ChallengeView } from '@presence/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../encoding.js';
import { PackChunks } from './pack-pages.js';
import { writeChallengeView } from './write-receipt-lines.js';

/** Any UTF-16 text: control characters, quotes, backslashes and lone surrogates included. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });

const views: fc.Arbitrary<ChallengeView> = fc.record(
  {
    challengeId: anyText,
    actionHashHex: anyText,
    status: fc.constantFrom('pending', 'verified', 'denied', 'expired'),
    subject: anyText,
    purpose: anyText,
    createdAt: anyText,
    expiresAt: anyText,
    usedAt: anyText,
    decision: fc.constantFrom(...DECISIONS),
    reason: anyText,
    receiptId: anyText,
  },
  { requiredKeys: ['challengeId', 'actionHashHex', 'status', 'createdAt', 'expiresAt'] },
);

describe('writeChallengeView', () => {
  it('writes what canonicalize writes, for any view', () => {
    fc.assert(
      fc.property(views, (view) => {
        const out = new PackChunks();
        writeChallengeView(out, view);
        expect(Buffer.concat(out.finish()).toString('utf8')).toBe(canonicalJson(view));
      }),
      { numRuns: 2000 },
    );
  });
});
