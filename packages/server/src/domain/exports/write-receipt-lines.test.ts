import { DECISIONS, type ChallengeView } from '@presence/contract';
import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackChunks } from './pack-pages.js';
import { writeChallengeView } from './write-receipt-lines.js';

/**
 * The RFC 8785 library itself, not canonicalJson, which refuses lone surrogates: a row stored before
 * the service refused them in request bodies may still hold one, and the page must still be written
 * exactly as the library writes it (a surrogate as its `\\udXXX` escape).
 */
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string;

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
        expect(Buffer.concat(out.finish()).toString('utf8')).toBe(canonicalize(view));
      }),
      { numRuns: 2000 },
    );
  });
});
