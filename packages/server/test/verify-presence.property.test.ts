/**
 * SQLite and PostgreSQL decide alike: generated verify scenarios, and one per row of the decision
 * table, are played through the live path on a service over each database, and what a caller and
 * an auditor see must agree. What each decision must be is the table's job (verify-decisions.test.ts).
 */
import { DECISIONS } from '@presence/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dialectAvailable, startedForSuite } from './support/each-dialect.js';
import { startTestService } from './support/test-service.js';
import { DECISION_TABLE } from './support/verify-decision-table.js';
import { BASE_SCENARIO, playScenario, scenarios, type Scenario } from './support/verify-scenarios.js';

const EXAMPLES: [Scenario][] = DECISION_TABLE.map(([, scenario]) => [{ ...BASE_SCENARIO, ...scenario }]);

describe.skipIf(!dialectAvailable('postgres'))('verify on SQLite = verify on PostgreSQL', () => {
  const sqlite = startedForSuite(
    () => startTestService('sqlite'),
    (s) => s.close(),
  );
  const postgres = startedForSuite(
    () => startTestService('postgres'),
    (s) => s.close(),
  );

  it('decides alike on generated inputs, every decision among them', async () => {
    const seen = new Set<string>();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenarios, async (sc) => {
        const tag = `r${run++}`;
        const a = await playScenario(sqlite, { tenantId: sqlite.tenantId, apiKey: sqlite.apiKey }, sc, tag);
        const b = await playScenario(
          postgres,
          { tenantId: postgres.tenantId, apiKey: postgres.apiKey },
          sc,
          tag,
        );
        seen.add(a.decision);
        expect(b).toEqual(a);
      }),
      { numRuns: 80, seed: 1010, examples: EXAMPLES },
    );
    // The inputs reach every decision, each denial included (a failure here means lost coverage).
    for (const decision of DECISIONS) expect(seen, decision).toContain(decision);
  }, 240_000);
});
