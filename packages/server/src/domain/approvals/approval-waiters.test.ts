import { describe, expect, it } from 'vitest';
import { createApprovalWaiters } from './approval-waiters.js';
import { BINDING_CODE_ALPHABET, hashLinkToken, newBindingCode, newLinkToken } from './link-token.js';
import { randomBytes } from 'node:crypto';

const random = { bytes: (n: number) => randomBytes(n) };

describe('approval waiters', () => {
  it('a signal wakes every waiter of that approval at once, and only those', async () => {
    const waiters = createApprovalWaiters();
    const a = [waiters.wait('apr_a', 5000), waiters.wait('apr_a', 5000)];
    const b = waiters.wait('apr_b', 50);
    waiters.signal('apr_a');
    expect(await Promise.all(a)).toEqual([true, true]);
    expect(await b).toBe(false);
  });

  it('holds at most `limit` waiters: beyond it a wait returns at once', async () => {
    const waiters = createApprovalWaiters(2);
    const held = [waiters.wait('apr_x', 5000), waiters.wait('apr_y', 5000)];
    expect(await waiters.wait('apr_z', 5000)).toBe(false);
    waiters.signal('apr_x');
    waiters.signal('apr_y');
    await Promise.all(held);
    const again = waiters.wait('apr_z', 5000);
    waiters.signal('apr_z');
    expect(await again).toBe(true);
  });
});

describe('link tokens and binding codes', () => {
  it('tokens are 256 bits as 43 base64url characters; only their hash is kept', () => {
    const { token, tokenHash } = newLinkToken(random);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenHash).toBe(hashLinkToken(token));
    expect(tokenHash).not.toContain(token);
  });

  it('binding codes are 6 characters of the unambiguous alphabet, every character in use', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = newBindingCode(random);
      expect(code).toMatch(/^[A-Z2-9]{6}$/);
      for (const c of code) seen.add(c);
    }
    expect([...seen].sort().join('')).toBe([...BINDING_CODE_ALPHABET].sort().join(''));
    expect(BINDING_CODE_ALPHABET).not.toMatch(/[01ILOU]/);
  });
});
