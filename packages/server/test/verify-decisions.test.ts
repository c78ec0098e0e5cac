/**
 * The live verify path against the decision table (support/verify-decision-table.ts), on both
 * databases: every row's decision, reason and stored state, and every decision of the contract
 * reached by some row.
 */
import { DECISIONS } from '@presence/contract';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';
import { DECISION_TABLE } from './support/verify-decision-table.js';
import { BASE_SCENARIO, playScenario } from './support/verify-scenarios.js';

it('has a row for every decision of the contract, and unique names', () => {
  expect(new Set(DECISION_TABLE.map((row) => row[2]))).toEqual(new Set(DECISIONS));
  expect(new Set(DECISION_TABLE.map((row) => row[0])).size).toBe(DECISION_TABLE.length);
});

describeEachDialect('the verify decision table', (dialect) => {
  const s = useTestService(dialect);

  DECISION_TABLE.forEach(
    ([name, scenario, decision, reasonPrefix, status, storedDecision, credential, receipt, signCount], i) => {
      it(name, async () => {
        const tenant = { tenantId: s.tenantId, apiKey: s.apiKey };
        const outcome = await playScenario(s, tenant, { ...BASE_SCENARIO, ...scenario }, `row${i}`);
        expect(outcome.decision).toBe(decision);
        if (reasonPrefix === '') expect(outcome.reason).toBeUndefined();
        else expect(outcome.reason?.startsWith(reasonPrefix), outcome.reason).toBe(true);
        expect(outcome.challengeIdEchoed).toBe(true);
        expect(outcome.receipt).toBe(decision === 'PRESENCE_VERIFIED');
        expect({ status: outcome.stored?.status, decision: outcome.stored?.decision }).toEqual({
          status,
          decision: storedDecision,
        });
        expect(outcome.storedCredentialRef).toBe(credential);
        expect(outcome.receiptStored).toBe(receipt);
        expect(outcome.signCount).toBe(signCount);
      });
    },
  );
});
