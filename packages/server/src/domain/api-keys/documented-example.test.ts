import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isWellFormedKeySecret } from './api-key-secret.js';

describe('docs/security.md', () => {
  it('shows an example key that the documented regex finds and whose checksum is valid', () => {
    const doc = readFileSync(new URL('../../../../../docs/security.md', import.meta.url), 'utf8');
    const regex = /`\\bpresence_\[0-9A-Za-z\]\{49\}\\b`/;
    expect(doc).toMatch(regex);
    const example = /\bpresence_[0-9A-Za-z]{49}\b/.exec(doc)?.[0];
    expect(example).toBeDefined();
    expect(isWellFormedKeySecret(example!)).toBe(true);
  });
});
