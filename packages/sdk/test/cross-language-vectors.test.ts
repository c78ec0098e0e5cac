/**
 * The TypeScript SDK over every cross-language vector (conformance/cross-language/, see its
 * README): the Python package and the Go module run the same files
 * (packages/server/test/cross-language.test.ts). Each vector names the checks that must fail;
 * every other check must pass. A member this runner does not know fails the vector, so a new kind
 * of vector cannot be silently ignored.
 */
import { readFileSync } from 'node:fs';
import type { ServiceKey } from '#contract';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical-json.js';
import { computeActionHashSync } from '../src/compute-action-hash-sync.js';
import { checkEvidence } from '../src/guard/check-evidence.js';
import { verifyWebhook, WebhookVerificationError } from '../src/verify-webhook.js';

const DIR = new URL('../../../conformance/cross-language/', import.meta.url);
const load = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as T;
const keysOf = (file: string) => load<{ keys: ServiceKey[] }>(file).keys;
const failedOf = (checks: Record<string, { ok: boolean }>) =>
  Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([name]) => name)
    .sort();

/** Fails when `value` has a member not in `known` (a vector this runner would misread). */
function onlyKnown(value: object, known: string[]): void {
  expect(Object.keys(value).filter((k) => !known.includes(k))).toEqual([]);
}

const EVIDENCE_MEMBERS = ['name', 'keys', 'action', 'maxAgeSeconds', 'now', 'expect'];

interface Expect {
  valid: boolean;
  failed: string[];
}

describe('cross-language vectors: RFC 8785', () => {
  const { cases, errors } = load<{
    cases: { name: string; inputText: string; canonical: string; sha256Hex: string }[];
    errors: { name: string; inputText: string }[];
  }>('canonicalization.json');
  it('has only the members this runner reads', () => {
    onlyKnown(load<object>('canonicalization.json'), ['cases', 'errors']);
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    onlyKnown(c, ['name', 'inputText', 'canonical', 'sha256Hex']);
    expect(canonicalJson(JSON.parse(c.inputText))).toBe(c.canonical);
    expect(computeActionHashSync(JSON.parse(c.inputText))).toBe(c.sha256Hex);
  });
  it.each(errors.map((c) => [c.name, c] as const))('refuses %s', (_name, c) => {
    onlyKnown(c, ['name', 'inputText']);
    expect(() => canonicalJson(JSON.parse(c.inputText))).toThrow();
  });
  it.each(
    load<{ name: string; action: unknown; canonical: string; actionHashHex: string }[]>('action-hashes.json'),
  )('action hash: $name', (c) => {
    onlyKnown(c, ['name', 'action', 'canonical', 'actionHashHex']);
    expect(canonicalJson(c.action)).toBe(c.canonical);
    expect(computeActionHashSync(c.action)).toBe(c.actionHashHex);
  });
});

describe('cross-language vectors: receipts', () => {
  const vectors = load<
    {
      name: string;
      keys: string;
      signed: unknown;
      action?: unknown;
      maxAgeSeconds?: number;
      now?: number;
      expect: Expect;
    }[]
  >('receipts.json');
  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    onlyKnown(v, [...EVIDENCE_MEMBERS, 'signed']);
    onlyKnown(v.expect, ['valid', 'failed']);
    const report = checkEvidence(v.signed, {
      keys: keysOf(v.keys),
      ...(v.action === undefined ? {} : { action: v.action }),
      maxAgeSeconds: v.maxAgeSeconds,
      ...(v.now === undefined ? {} : { now: v.now * 1000 }),
    });
    expect(failedOf(report.checks), JSON.stringify(report.checks, null, 1)).toEqual(
      [...v.expect.failed].sort(),
    );
    expect(report.valid).toBe(v.expect.valid);
  });
});

describe('cross-language vectors: approval sets', () => {
  const vectors = load<
    {
      name: string;
      keys: string;
      evidence: unknown;
      action?: unknown;
      maxAgeSeconds?: number;
      now?: number;
      expect: Expect;
    }[]
  >('approval-sets.json');
  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    onlyKnown(v, [...EVIDENCE_MEMBERS, 'evidence']);
    onlyKnown(v.expect, ['valid', 'failed']);
    const report = checkEvidence(v.evidence, {
      keys: keysOf(v.keys),
      ...(v.action === undefined ? {} : { action: v.action }),
      maxAgeSeconds: v.maxAgeSeconds,
      ...(v.now === undefined ? {} : { now: v.now * 1000 }),
    });
    expect(report.kind).toBe('approvalSet');
    expect(failedOf(report.checks), JSON.stringify(report.checks, null, 1)).toEqual(
      [...v.expect.failed].sort(),
    );
    expect(report.valid).toBe(v.expect.valid);
  });
});

describe('cross-language vectors: webhooks', () => {
  const vectors = load<
    {
      name: string;
      secrets: string[];
      headers: Record<string, string>;
      rawBody: string;
      now: number;
      expect: { valid: true; scheme: string } | { valid: false; error: string };
    }[]
  >('webhooks.json');
  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    onlyKnown(v, ['name', 'secrets', 'headers', 'rawBody', 'now', 'expect']);
    onlyKnown(v.expect, ['valid', 'scheme', 'error']);
    const run = () =>
      verifyWebhook({ secrets: v.secrets, headers: v.headers, rawBody: v.rawBody, now: v.now * 1000 });
    if (v.expect.valid) {
      expect(run().scheme).toBe(v.expect.scheme);
    } else {
      const error = (() => {
        try {
          run();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).code).toBe(v.expect.error);
    }
  });
});
