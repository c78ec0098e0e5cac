/**
 * A key is rotated once, across processes: two real server processes on one database (a
 * PostgreSQL database, or one SQLite file) receive rotations of the same key at the same time;
 * exactly one answers 201 and one successor exists, every other answer is a 409 (issue 34 §2).
 * Runs the built service, so `npm test` builds first.
 */
import { describe, expect, it } from 'vitest';
import type { ServerProcess } from './support/server-process.js';
import { processDialects, useServerProcesses } from './support/server-processes.js';

for (const setup of await processDialects('multi-process key rotation')) {
  describe.skipIf(!setup.enabled)(`key rotation on two server processes, one ${setup.name} database`, () => {
    const group = useServerProcesses(setup.name, {
      name: 'rotate',
      processes: 2,
    });

    const call = (...args: Parameters<typeof group.request>) => group.request(...args);

    it('lets exactly one of many concurrent rotations of a key succeed', async () => {
      const [a, b] = group.servers as [ServerProcess, ServerProcess];
      for (let round = 0; round < 3; round++) {
        const created = await call(a, 'POST', '/v1/keys', {
          name: `raced-${round}`,
          scopes: ['receipts:read'],
        });
        expect(created.status).toBe(201);
        const keyId: string = created.json.key.keyId;
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            call(i % 2 === 0 ? a : b, 'POST', `/v1/keys/${keyId}/rotate`, {}),
          ),
        );
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
        const listed = await call(b, 'GET', '/v1/keys?limit=200');
        const named = (listed.json.data as { name: string }[]).filter((k) => k.name === `raced-${round}`);
        expect(named).toHaveLength(2);
      }
    });
  });
}
