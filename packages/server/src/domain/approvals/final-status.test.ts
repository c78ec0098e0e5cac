import { describe, expect, it } from 'vitest';
import { finalStatus } from './record-approval-decision.js';

type D = 'approved' | 'rejected' | null;
const of = (...decisions: D[]) => decisions.map((decision) => ({ decision }));

describe('the quorum rule (docs/api-contract.md#13-approvals)', () => {
  const cases: [number, D[], string | undefined][] = [
    [1, [null], undefined],
    [1, ['approved'], 'approved'],
    [1, ['rejected'], 'rejected'],
    [2, ['approved', null, null], undefined],
    [2, ['approved', 'approved', null], 'approved'],
    [2, ['rejected', null, null], undefined],
    [2, ['rejected', 'rejected', null], 'rejected'],
    [2, ['approved', 'rejected', null], undefined],
    [2, ['approved', 'rejected', 'approved'], 'approved'],
    [3, ['approved', 'approved', 'rejected'], 'rejected'],
    [3, ['approved', 'approved', null], undefined],
    [20, Array<D>(19).fill('approved').concat([null]), undefined],
    [20, Array<D>(19).fill('approved').concat(['rejected']), 'rejected'],
  ];
  it.each(cases)('required %i of %j → %s', (required, decisions, expected) => {
    expect(finalStatus(required, of(...decisions))).toBe(expected);
  });
});
