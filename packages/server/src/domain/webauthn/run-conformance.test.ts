import { afterEach, describe, expect, it, vi } from 'vitest';
import { KNOWN_DEVIATIONS } from './conformance-deviations.js';
import { formatConformanceReport, runConformance, type ConformanceResult } from './run-conformance.js';
import { loadWebAuthnVectors } from '../../../test/fixtures/webauthn/vectors.js';

// The vendored vectors (test/fixtures/webauthn, with their sources in its README).
const vectors = loadWebAuthnVectors();
const DAY_MS = 86_400_000;

let cached: Promise<ConformanceResult> | undefined;
const fullRun = () => (cached ??= runConformance(vectors));

afterEach(() => {
  vi.useRealTimers();
});

describe('runConformance on the shared WebAuthn vectors', () => {
  it('has no unexplained failures', async () => {
    const result = await fullRun();
    const failures = result.results.filter((r) => r.actual !== r.expected && r.deviation === undefined);
    expect(failures.map((r) => `${r.id}: expected ${r.expected}, got ${r.actual} (${r.detail})`)).toEqual([]);
    expect(result.failed).toBe(0);
    expect(result.passed + result.deviations).toBe(vectors.length);
  });

  it('lists only deviations that exist and still deviate', async () => {
    const result = await fullRun();
    for (const id of Object.keys(KNOWN_DEVIATIONS)) {
      const outcome = result.results.find((r) => r.id === id);
      expect(outcome, `${id} is not a vector id`).toBeDefined();
      expect(outcome?.deviation, `${id} no longer deviates: remove it from KNOWN_DEVIATIONS`).toBe(
        KNOWN_DEVIATIONS[id],
      );
    }
    expect(result.deviations).toBe(Object.keys(KNOWN_DEVIATIONS).length);
  });

  it('agrees on every authentication vector, Ed448 and cross-origin policy included', async () => {
    const result = await fullRun();
    const authentication = result.results.filter((r) => r.kind === 'authentication');
    expect(authentication.length).toBeGreaterThan(60);
    expect(authentication.filter((r) => r.actual !== r.expected)).toEqual([]);
  });

  it('proves the expired-certificate deviations verify with the clock the source used', async () => {
    const expiredIds = Object.keys(KNOWN_DEVIATIONS).filter((id) =>
      KNOWN_DEVIATIONS[id]!.includes('expired on'),
    );
    expect(expiredIds.length).toBeGreaterThan(0);
    for (const id of expiredIds) {
      const vector = vectors.find((v) => v.id === id)!;
      const notAfter = Date.parse(String(vector.attestationCertsNotAfter));
      const clock = typeof vector.verifyAt === 'string' ? Date.parse(vector.verifyAt) : notAfter - DAY_MS;
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(clock);
      const result = await runConformance([vector]);
      vi.useRealTimers();
      expect(result.results[0], id).toMatchObject({ actual: 'valid', expected: 'valid' });
    }
  });

  it('reports malformed vectors as failures without throwing', async () => {
    const result = await runConformance([
      null,
      42,
      { id: 'x', kind: 'other' },
      { id: 'y', kind: 'authentication' },
    ]);
    expect(result).toMatchObject({ passed: 0, failed: 4, deviations: 0 });
  });
});

describe('formatConformanceReport', () => {
  it('prints one line per case, the deviation count, then "N passed, N failed"', async () => {
    const result = await fullRun();
    const lines = formatConformanceReport(result).split('\n');
    expect(lines).toHaveLength(result.results.length + 2);
    expect(lines.at(-2)).toBe(`${result.deviations} deviations (documented in docs/conformance.md)`);
    expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
    expect(lines.at(-1)).toBe(`${result.passed} passed, ${result.failed} failed`);
    expect(lines.filter((l) => l.startsWith('DEVIATION '))).toHaveLength(result.deviations);
  });
});
