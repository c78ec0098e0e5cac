/**
 * The committed cross-language vectors (conformance/cross-language/) are what the generator makes
 * today, so a case added to it without regenerating fails here (issue 38). canonicalization.json
 * and action-hashes.json are deterministic: they must equal, byte for byte, what the cases produce
 * now. Receipts, approval sets and webhooks carry fresh keys and signatures on every run: the
 * generator runs against a real service into a temporary directory, and each file must have the
 * same cases, by name, with the same keys file, options and expectations.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionHashVectors, canonicalVectors } from './support/cross-language/canonical-cases.js';
import { writeCrossLanguageVectors } from './support/cross-language/write-vectors.js';

const COMMITTED = new URL('../../../conformance/cross-language/', import.meta.url);
const text = (dir: URL, name: string) => readFileSync(new URL(name, dir), 'utf8');
const asFile = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** What a case promises, without the evidence itself (new keys and signatures each run). */
function promises(dir: URL, name: string) {
  const cases = JSON.parse(text(dir, name)) as Record<string, unknown>[];
  return cases.map(({ name: caseName, keys, action, maxAgeSeconds, now, secrets, expect: e }) => ({
    name: caseName,
    keys,
    action,
    maxAgeSeconds,
    hasNow: now !== undefined,
    secrets: Array.isArray(secrets) ? secrets.length : undefined,
    expect: e,
  }));
}

describe('the committed cross-language vectors', () => {
  it('canonicalization.json and action-hashes.json are what the cases produce now', () => {
    expect(text(COMMITTED, 'canonicalization.json')).toBe(asFile(canonicalVectors()));
    expect(text(COMMITTED, 'action-hashes.json')).toBe(asFile(actionHashVectors()));
  });

  describe('the files made from a running service', () => {
    const dir = mkdtempSync(join(tmpdir(), 'presence-vectors-drift-'));
    const fresh = pathToFileURL(`${dir}/`);
    beforeAll(() => writeCrossLanguageVectors(fresh), 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('are the files the generator writes, no more and no fewer', () => {
      const committed = readdirSync(COMMITTED).filter((f) => f.endsWith('.json'));
      expect(committed.sort()).toEqual(readdirSync(dir).sort());
    });

    it.each(['receipts.json', 'approval-sets.json', 'webhooks.json'])(
      '%s has the generator’s cases, keys, options and expectations',
      (name) => {
        expect(promises(COMMITTED, name)).toEqual(promises(fresh, name));
      },
    );

    it('keys files hold the same kinds of keys', () => {
      const shape = (d: URL, f: string) =>
        (JSON.parse(text(d, f)) as { keys: Record<string, unknown>[] }).keys.map((k) => ({
          use: k.use,
          status: k.status,
          notBefore: typeof k.notBefore === 'string' && k.notBefore.startsWith('2099'),
        }));
      for (const f of ['keys.json', 'keys-rotated.json', 'keys-not-yet-valid.json', 'keys-other.json'])
        expect(shape(COMMITTED, f), f).toEqual(shape(fresh, f));
    });
  });
});
