/**
 * The transaction shape behind Idempotency-Key, on both databases: the change and its response
 * commit together, a 5xx rolls both back, and a key used alone (a refusal) loses to a committed
 * winner. The HTTP behaviour is in test/idempotency.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../storage/each-dialect.js';
import { createSecretBox } from '../secrets.js';
import { seedTenant, TestRecords } from '../../storage/test-records.js';
import { openTestStore, type TestStore } from '../../storage/testing.js';
import type { TenantRecord } from '../tenants/ports.js';
import { readIdempotentOutcome, type IdempotentRequest } from './read-idempotent-outcome.js';
import { startIdempotentExecution } from './start-idempotent-execution.js';

const response = (statusCode: number, body: string) => ({
  statusCode,
  contentType: 'application/json',
  body,
});

describeEachDialect('idempotent execution', (dialect) => {
  let db: TestStore;
  let tenantId: string;
  const records = new TestRecords();
  const deps = () => ({
    store: db.store,
    clock: { now: () => Date.now() },
    secrets: createSecretBox(randomBytes(32), { bytes: (n: number) => randomBytes(n) }),
  });
  const request = (key: string, fingerprintHex = 'f'.repeat(64)): IdempotentRequest => ({
    tenantId,
    key,
    fingerprintHex,
    method: 'POST',
    route: '/v1/things',
  });
  const tenantsNamed = async (name: string) => (await db.store.tenants.list()).filter((t) => t.name === name);

  beforeAll(async () => {
    db = await openTestStore(dialect);
    tenantId = (await seedTenant(db.store, records)).tenant.id;
  });
  afterAll(async () => db?.cleanup());

  /** A business change: one tenant row named `name`, written through the request's store. */
  async function change(execution: ReturnType<typeof startIdempotentExecution>, name: string) {
    const tenant: TenantRecord = records.tenant({ name });
    await execution.deps.store.transaction((tx) => tx.tenants.insert(tenant));
  }

  it('commits the change with its response, and replays that response', async () => {
    const shared = deps();
    const execution = startIdempotentExecution(shared, request('commit-1'));
    await change(execution, 'commit-1');
    expect(await execution.finish(response(201, '{"id":1}'))).toEqual({ kind: 'stored' });
    expect(await tenantsNamed('commit-1')).toHaveLength(1);
    expect(await readIdempotentOutcome(shared, request('commit-1'))).toEqual({
      kind: 'replay',
      response: response(201, '{"id":1}'),
    });
    expect(await readIdempotentOutcome(shared, request('commit-1', '0'.repeat(64)))).toEqual({
      kind: 'conflict',
      method: 'POST',
      route: '/v1/things',
    });
  });

  it('rolls the change back on a 5xx and stores nothing, so the key runs again', async () => {
    const execution = startIdempotentExecution(deps(), request('fail-1'));
    await change(execution, 'fail-1');
    expect(await execution.finish(response(500, '{}'))).toEqual({ kind: 'not-stored' });
    expect(await tenantsNamed('fail-1')).toEqual([]);
    expect(await db.store.idempotency.get(tenantId, 'fail-1')).toBeUndefined();
    const retry = startIdempotentExecution(deps(), request('fail-1'));
    await change(retry, 'fail-1');
    expect(await retry.finish(response(201, '{}'))).toEqual({ kind: 'stored' });
    expect(await tenantsNamed('fail-1')).toHaveLength(1);
  });

  it('stores no outcome the client is told to retry later (409, 429), and rolls its change back', async () => {
    for (const status of [409, 429]) {
      const key = `later-${status}`;
      const execution = startIdempotentExecution(deps(), request(key));
      await change(execution, key);
      expect(await execution.finish(response(status, '{}'))).toEqual({ kind: 'not-stored' });
      expect(await tenantsNamed(key)).toEqual([]);
      const alone = startIdempotentExecution(deps(), request(key));
      expect(await alone.finish(response(status, '{}'))).toEqual({ kind: 'not-stored' });
      expect(await db.store.idempotency.get(tenantId, key)).toBeUndefined();
    }
  });

  it('runs store use after the transaction inside it, and refuses a second transaction', async () => {
    const execution = startIdempotentExecution(deps(), request('held-1'));
    await change(execution, 'held-1');
    const mine = (await execution.deps.store.tenants.list()).filter((t) => t.name === 'held-1');
    expect(mine).toHaveLength(1);
    await expect(change(execution, 'held-1b')).rejects.toThrow(/one store.transaction/);
    await execution.finish(response(201, '{}'));
    expect(await tenantsNamed('held-1')).toHaveLength(1);
    expect(await tenantsNamed('held-1b')).toEqual([]);
  });

  it('makes a refusal recorded alone yield to the winner that committed the key first', async () => {
    const shared = deps();
    const winner = startIdempotentExecution(shared, request('race-1'));
    await change(winner, 'race-1');
    const loser = startIdempotentExecution(shared, request('race-1')).finish(response(200, '{"late":true}'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await winner.finish(response(201, '{"first":true}'))).toEqual({ kind: 'stored' });
    expect(await loser).toEqual({ kind: 'replay', response: response(201, '{"first":true}') });
  });

  it('stores a refusal alone when no change was made', async () => {
    const shared = deps();
    const execution = startIdempotentExecution(shared, request('refusal-1'));
    expect(await execution.finish(response(422, '{"code":"policy_violation"}'))).toEqual({
      kind: 'stored',
    });
    expect(await readIdempotentOutcome(shared, request('refusal-1'))).toMatchObject({ kind: 'replay' });
  });
});
