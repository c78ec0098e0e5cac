import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isWellFormedKeySecret, keyChecksum, newKeySecret } from './api-key-secret.js';
import { checkGrantableScopes, OWNER_SCOPES } from './check-grantable-scopes.js';

const random = { bytes: (n: number) => randomBytes(n) };
/** The regex docs/security.md gives secret scanners. */
const SCANNER_REGEX = /\bpresence_[0-9A-Za-z]{49}\b/;

describe('API key secrets', () => {
  it('have the documented shape, a CRC32 checksum and distinct values', () => {
    const secrets = Array.from({ length: 200 }, () => newKeySecret(random).secret);
    expect(new Set(secrets).size).toBe(200);
    for (const secret of secrets) {
      expect(secret).toMatch(SCANNER_REGEX);
      expect(secret.slice(-6)).toBe(keyChecksum(secret.slice(9, 52)));
      expect(isWellFormedKeySecret(secret)).toBe(true);
    }
  });

  it('are found by the scanner regex inside text and refused when one character changes', () => {
    const { secret } = newKeySecret(random);
    expect(`export PRESENCE_API_KEY="${secret}"`.match(SCANNER_REGEX)?.[0]).toBe(secret);
    for (const index of [9, 30, secret.length - 1]) {
      const changed = secret.slice(0, index) + (secret[index] === 'x' ? 'y' : 'x') + secret.slice(index + 1);
      expect(isWellFormedKeySecret(changed), `position ${index}`).toBe(false);
    }
    expect(isWellFormedKeySecret(secret + 'A')).toBe(false);
    expect(isWellFormedKeySecret('presence_short')).toBe(false);
  });

  it('still accepts the legacy prs_ form', () => {
    expect(isWellFormedKeySecret(`prs_${randomBytes(32).toString('base64url')}`)).toBe(true);
    expect(isWellFormedKeySecret(`prs_${'x'.repeat(200)}`)).toBe(false);
    expect(isWellFormedKeySecret('ghp_somethingelse')).toBe(false);
  });
});

describe('checkGrantableScopes', () => {
  it('allows a subset of the grantor scopes and names what is missing otherwise', () => {
    expect(() => checkGrantableScopes(['keys:manage', 'receipts:read'], ['receipts:read'])).not.toThrow();
    expect(() => checkGrantableScopes(['keys:manage'], ['keys:manage', 'receipts:read'])).toThrow(
      /lacks receipts:read/,
    );
  });

  it('lets only a grantor with every scope (an owner) grant every scope', () => {
    expect(() => checkGrantableScopes(OWNER_SCOPES, OWNER_SCOPES)).not.toThrow();
    expect(() => checkGrantableScopes(OWNER_SCOPES.slice(1), OWNER_SCOPES)).toThrow(/lacks/);
  });
});
