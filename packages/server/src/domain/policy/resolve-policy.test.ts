import type { PolicyRules } from '@presence/contract';
import { describe, expect, it } from 'vitest';
import { readStoredRules, resolvePolicy } from './resolve-policy.js';

const today = resolvePolicy({
  rpId: 'app.example',
  allowedOrigins: ['https://app.example'],
  allowCrossOrigin: true,
  counter: 'ignore',
  attestation: { conveyance: 'direct', allowedFormats: ['packed'], aaguidAllowlist: [] },
});

describe('readStoredRules', () => {
  it('reads a version written by this build exactly as stored', () => {
    expect(readStoredRules(structuredClone(today))).toEqual(today);
  });

  it('gives a version written before a rule existed that rule at its default, and keeps the rest', () => {
    const older: Partial<PolicyRules> = structuredClone(today);
    delete older.counter;
    delete older.allowedTopOrigins;
    const attestation = { conveyance: 'direct', allowedFormats: ['packed'] };
    const stored = { ...older, attestation } as unknown as PolicyRules;
    expect(readStoredRules(stored)).toEqual({
      ...today,
      counter: 'reject-regression',
      allowedTopOrigins: [],
      attestation: { ...attestation, aaguidAllowlist: [] },
    });
  });

  it('keeps a field this build no longer knows', () => {
    const stored = { ...structuredClone(today), retiredRule: 7 } as PolicyRules;
    expect(readStoredRules(stored)).toEqual({ ...today, retiredRule: 7 });
  });
});
