/**
 * Approvals across processes: two real server processes on one database (a PostgreSQL database,
 * or one SQLite file) record the last two approvals of the same approval at the same moment.
 * Each round ends with exactly one final status and one approval set, and the approver who came
 * second is told that the approval is no longer pending. Runs the built service.
 */
import { describe, expect, it } from 'vitest';
import { pgAvailable } from '../src/storage/testing.js';
import { type ServerProcess, serviceBuilt } from './support/server-process.js';
import { useServerProcesses } from './support/server-processes.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';

const ORIGIN = 'https://app.example';
const built = serviceBuilt('multi-process approval tests');
const pgUp = built && (await pgAvailable());
const ROUNDS = 6;

const setups = [
  { name: 'postgres', enabled: pgUp },
  { name: 'sqlite', enabled: built },
] as const;

for (const setup of setups) {
  describe.skipIf(!setup.enabled)(`approvals on two server processes, one ${setup.name} database`, () => {
    const group = useServerProcesses(setup.name, {
      name: 'mpa',
      env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' },
      processes: 2,
    });

    const call = async (
      server: ServerProcess,
      method: string,
      path: string,
      body?: unknown,
      key = group.apiKey,
    ) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(key === '' ? {} : { authorization: `Bearer ${key}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as any };
    };

    async function enroll(server: ServerProcess, subject: string) {
      const authenticator = new SoftAuthenticator('app.example', ORIGIN);
      const options = await call(server, 'POST', '/v1/presence/credentials/options', { subject });
      const enrolled = await call(server, 'POST', '/v1/presence/credentials', {
        registrationId: options.json.registrationId,
        credential: authenticator.register({ challenge: options.json.publicKey.challenge }),
      });
      expect(enrolled.status).toBe(201);
      return authenticator;
    }

    /** Options on `server`, then a function that posts the decision (so two can be sent at once). */
    async function prepare(server: ServerProcess, token: string, who: SoftAuthenticator) {
      const options = await call(server, 'POST', `/approve/${token}/options`, { intent: 'approve' }, '');
      expect(options.status).toBe(200);
      const assertion = who.assert({ challenge: options.json.publicKey.challenge });
      return () =>
        call(
          server,
          'POST',
          `/approve/${token}/decide`,
          { challengeId: options.json.challengeId, assertion },
          '',
        );
    }

    it('the last two approvals race on two processes: one final status, one approval set', async () => {
      const [a, b] = group.servers as [ServerProcess, ServerProcess];
      const people = { p1: await enroll(a, 'p1'), p2: await enroll(b, 'p2'), p3: await enroll(a, 'p3') };
      for (let round = 0; round < ROUNDS; round++) {
        const created = await call(a, 'POST', '/v1/approvals', {
          action: { type: 'transfer', round },
          approvers: ['p1', 'p2', 'p3', 'p4'],
          required: 3,
        });
        expect(created.status).toBe(201);
        const token = String(created.json.approvalUrl).slice(`${ORIGIN}/approve/`.length);
        const first = await (await prepare(b, token, people.p1))();
        expect(first.json).toMatchObject({ recorded: true, state: { status: 'pending' } });
        const onA = await prepare(a, token, people.p2);
        const onB = await prepare(b, token, people.p3);
        // p4 has no passkey: the quorum of 3 needs both racers, so both must count.
        const raced = await Promise.all([onA(), onB()]);
        expect(raced.map((r) => r.status)).toEqual([200, 200]);
        expect(raced.every((r) => r.json.recorded === true)).toBe(true);
        const read = await call(b, 'GET', `/v1/approvals/${created.json.approvalId}`);
        expect(read.json.status).toBe('approved');
        expect(
          read.json.approvalSet.approvalSet.approvals.map((x: { subject: string }) => x.subject).sort(),
        ).toEqual(['p1', 'p2', 'p3']);
        const readOnA = await call(a, 'GET', `/v1/approvals/${created.json.approvalId}`);
        expect(readOnA.json.approvalSet.approvalSetHashHex).toBe(read.json.approvalSet.approvalSetHashHex);
      }
    }, 120_000);

    it('two approvers race for the last place: one counts, the other is told it no longer pends', async () => {
      const [a, b] = group.servers as [ServerProcess, ServerProcess];
      const people = { q1: await enroll(a, 'q1'), q2: await enroll(b, 'q2'), q3: await enroll(a, 'q3') };
      for (let round = 0; round < ROUNDS; round++) {
        const created = await call(b, 'POST', '/v1/approvals', {
          action: { type: 'release', round },
          approvers: ['q1', 'q2', 'q3'],
          required: 2,
        });
        const token = String(created.json.approvalUrl).slice(`${ORIGIN}/approve/`.length);
        await (
          await prepare(a, token, people.q1)
        )();
        const onA = await prepare(a, token, people.q2);
        const onB = await prepare(b, token, people.q3);
        const raced = await Promise.all([onA(), onB()]);
        expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
        const loser = raced.find((r) => r.status === 409)!;
        expect(loser.json.code).toBe('approval_not_pending');
        expect(loser.json.detail).toMatch(/receipt rct_/);
        const read = await call(a, 'GET', `/v1/approvals/${created.json.approvalId}`);
        expect(read.json.status).toBe('approved');
        expect(read.json.approvalSet.approvalSet.approvals).toHaveLength(2);
        expect(
          read.json.approvers.filter((x: { decision: string | null }) => x.decision === 'approved'),
        ).toHaveLength(2);
      }
    }, 120_000);
  });
}
