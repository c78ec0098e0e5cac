import { SettingsService } from '@simplewebauthn/server';
import { decodeAttestationObject } from '@simplewebauthn/server/helpers';
import { KNOWN_DEVIATIONS } from './conformance-deviations.js';
import { decodeBase64UrlLenient } from '../encoding.js';
import { PublicKeyCache, VERIFIABLE_ALGORITHMS } from './public-key-cache.js';
import { verifyAssertion, type AssertionResponseLike } from './verify-assertion.js';
import { verifyRegistration, type RegistrationResponseLike } from './verify-registration.js';

/**
 * Runs WebAuthn conformance vectors (the vendored set: test/fixtures/webauthn, see its README) through
 * verifyAssertion and verifyRegistration. Pure apart from one thing: registration vectors bring
 * their own trust anchors, which the library only reads from its process-wide SettingsService,
 * so each registration case swaps the root certificates of its format in and back out. Cases run
 * one at a time; do not run this next to live registrations in the same process.
 */

type Verdict = 'valid' | 'invalid';

export interface ConformanceCaseResult {
  id: string;
  kind: string;
  expected: string;
  actual: Verdict;
  detail: string;
  /** Set when actual ≠ expected and the case is a KNOWN_DEVIATIONS entry: the documented reason. */
  deviation?: string;
}

export interface ConformanceResult {
  results: ConformanceCaseResult[];
  passed: number;
  failed: number;
  deviations: number;
}

interface Vector {
  id: string;
  kind: 'authentication' | 'registration';
  expected: Verdict;
  rpId: string;
  origin: string;
  expectedChallenge: string;
  requireUV: boolean;
  allowCrossOrigin: boolean;
  expectedTopOrigin: string | null;
  storedSignCount: number;
  credentialId: string;
  credentialPublicKey: string;
  response: Record<string, unknown>;
  trustAnchors: string[];
}

export async function runConformance(vectors: unknown[]): Promise<ConformanceResult> {
  const keys = new PublicKeyCache();
  const results: ConformanceCaseResult[] = [];
  for (const [index, value] of vectors.entries()) {
    const vector = readVector(value);
    if (typeof vector === 'string') {
      results.push({
        id: `#${index}`,
        kind: 'unknown',
        expected: 'unknown',
        actual: 'invalid',
        detail: vector,
      });
      continue;
    }
    const outcome =
      vector.kind === 'authentication' ? runAuthentication(keys, vector) : await runRegistration(vector);
    results.push(classify(vector, outcome));
  }
  const deviations = results.filter((r) => r.deviation !== undefined).length;
  const passed = results.filter((r) => r.actual === r.expected).length;
  return { results, passed, failed: results.length - passed - deviations, deviations };
}

function classify(vector: Vector, outcome: { actual: Verdict; detail: string }): ConformanceCaseResult {
  const result: ConformanceCaseResult = {
    id: vector.id,
    kind: vector.kind,
    expected: vector.expected,
    ...outcome,
  };
  const deviation = KNOWN_DEVIATIONS[vector.id];
  return outcome.actual !== vector.expected && deviation !== undefined ? { ...result, deviation } : result;
}

function runAuthentication(keys: PublicKeyCache, v: Vector): { actual: Verdict; detail: string } {
  const verdict = verifyAssertion(
    { keys },
    {
      response: {
        id: v.credentialId,
        rawId: v.credentialId,
        type: 'public-key',
        response: v.response,
      } as AssertionResponseLike,
      credential: {
        credentialId: v.credentialId,
        publicKeyB64Url: v.credentialPublicKey,
        signCount: v.storedSignCount,
      },
      expect: {
        rpId: v.rpId,
        allowedOrigins: [v.origin],
        expectedChallengeB64Url: v.expectedChallenge,
        requireUserVerification: v.requireUV,
        allowCrossOrigin: v.allowCrossOrigin,
        allowedTopOrigins: v.expectedTopOrigin === null ? [] : [v.expectedTopOrigin],
        allowedAlgorithms: undefined,
        counterRule: 'reject-regression',
      },
    },
  );
  if (verdict.ok) {
    return { actual: 'valid', detail: `verified (UV=${verdict.flags.UV}, signCount ${verdict.signCount})` };
  }
  return { actual: 'invalid', detail: `${verdict.reason}: ${verdict.detail}` };
}

async function runRegistration(v: Vector): Promise<{ actual: Verdict; detail: string }> {
  const response = { id: v.credentialId, rawId: v.credentialId, type: 'public-key', response: v.response };
  const verdict = await withRootCertificates(formatOf(v.response.attestationObject), v.trustAnchors, () =>
    verifyRegistration({
      response: response as RegistrationResponseLike,
      expect: {
        rpId: v.rpId,
        allowedOrigins: [v.origin],
        expectedChallengeB64Url: v.expectedChallenge,
        requireUserVerification: v.requireUV,
        allowedAlgorithms: VERIFIABLE_ALGORITHMS,
        allowedFormats: [],
        allowCrossOrigin: v.allowCrossOrigin,
        allowedTopOrigins: v.expectedTopOrigin === null ? [] : [v.expectedTopOrigin],
      },
    }),
  );
  if (verdict.ok) {
    return { actual: 'valid', detail: `registered (${verdict.attestationFormat}, alg ${verdict.algorithm})` };
  }
  return { actual: 'invalid', detail: `${verdict.reason}: ${verdict.detail}` };
}

/**
 * The vector's trust anchors become the only roots for its format while it runs. A vector without
 * anchors runs with none, so the library skips path validation, as the vector's own reference
 * verdict did ("attestation chain NOT evaluated").
 */
async function withRootCertificates<T>(
  fmt: RootCertIdentifier | null,
  anchors: readonly string[],
  run: () => Promise<T>,
): Promise<T> {
  if (fmt === null) return run();
  const previous = SettingsService.getRootCertificates({ identifier: fmt });
  const certificates = anchors.flatMap((anchor) => {
    const der = decodeBase64UrlLenient(anchor);
    return der === null ? [] : [new Uint8Array(der)];
  });
  SettingsService.setRootCertificates({ identifier: fmt, certificates });
  try {
    return await run();
  } finally {
    SettingsService.setRootCertificates({ identifier: fmt, certificates: previous });
  }
}

type RootCertIdentifier = Parameters<typeof SettingsService.getRootCertificates>[0]['identifier'];
const FORMATS: readonly string[] = [
  'packed',
  'tpm',
  'android-key',
  'android-safetynet',
  'fido-u2f',
  'apple',
  'none',
];
const isFormat = (fmt: unknown): fmt is RootCertIdentifier =>
  typeof fmt === 'string' && FORMATS.includes(fmt);

function formatOf(attestationObject: unknown): RootCertIdentifier | null {
  try {
    const bytes = decodeBase64UrlLenient(attestationObject);
    const fmt: unknown = bytes === null ? null : decodeAttestationObject(new Uint8Array(bytes)).get('fmt');
    return isFormat(fmt) ? fmt : null;
  } catch {
    return null;
  }
}

function readVector(value: unknown): Vector | string {
  if (typeof value !== 'object' || value === null) return 'vector is not an object';
  const v = value as Record<string, unknown>;
  const id = typeof v.id === 'string' ? v.id : '(no id)';
  if (v.kind !== 'authentication' && v.kind !== 'registration') {
    return `${id}: unknown kind ${String(v.kind)}`;
  }
  if (v.expected !== 'valid' && v.expected !== 'invalid') {
    return `${id}: expected is neither valid nor invalid`;
  }
  const strings = ['rpId', 'origin', 'expectedChallenge', 'credentialId'].every(
    (k) => typeof v[k] === 'string',
  );
  if (!strings || typeof v.response !== 'object' || v.response === null) {
    return `${id}: relying party or response missing`;
  }
  return {
    id,
    kind: v.kind,
    expected: v.expected,
    rpId: v.rpId as string,
    origin: v.origin as string,
    expectedChallenge: v.expectedChallenge as string,
    requireUV: v.requireUV === true,
    allowCrossOrigin: v.allowCrossOrigin === true,
    expectedTopOrigin: typeof v.expectedTopOrigin === 'string' ? v.expectedTopOrigin : null,
    storedSignCount: typeof v.storedSignCount === 'number' ? v.storedSignCount : 0,
    credentialId: v.credentialId as string,
    credentialPublicKey: typeof v.credentialPublicKey === 'string' ? v.credentialPublicKey : '',
    response: v.response as Record<string, unknown>,
    trustAnchors: Array.isArray(v.trustAnchors)
      ? v.trustAnchors.filter((a): a is string => typeof a === 'string')
      : [],
  };
}

/** One line per case, then the deviation count, then exactly `N passed, N failed`. */
export function formatConformanceReport(result: ConformanceResult): string {
  const lines = result.results.map((r) => {
    const status = r.actual === r.expected ? 'PASS' : r.deviation !== undefined ? 'DEVIATION' : 'FAIL';
    const tail = r.deviation !== undefined ? ` — known deviation: ${r.deviation}` : '';
    return `${status} ${r.kind} ${r.id}: expected ${r.expected}, got ${r.actual} (${oneLine(r.detail)})${tail}`;
  });
  lines.push(`${result.deviations} deviations (documented in docs/conformance.md)`);
  lines.push(`${result.passed} passed, ${result.failed} failed`);
  return lines.join('\n');
}

/** Library messages can embed PEM certificates: keep each case on one readable line. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? `${flat.slice(0, 240)}…` : flat;
}
