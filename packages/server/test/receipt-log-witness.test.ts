/**
 * A witness following an honest log (both databases): it cosigns every consistent checkpoint,
 * the service serves its cosignature, a tenant can require N witness cosignatures on the
 * checkpoint of every pack, and presence-verify counts the witnesses an auditor trusts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadOrCreateWitnessKey,
  openCheckpoint,
  parseVerifierKey,
  verifyPack,
  witnessOnce,
} from '@presence/sdk/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setLogWitnesses } from '../src/domain/receipt-log/set-log-witnesses.js';
import { fetchPack, publishedKeys } from './support/export-pack.js';
import { fetchCheckpoint, integrateNow, logKeys } from './support/receipt-log.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { describeEachDialect } from './support/each-dialect.js';
import { startTestService, type TestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const RANGE = `from=${iso(BASE)}&to=${iso(BASE + 3_600_000)}`;

describeEachDialect('receipt log witness', (dialect) => {
  let s: TestService;
  let alice: SoftAuthenticator;
  let url: string;
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    s = await startTestService(dialect);
    ({ authenticator: alice } = await s.enroll('alice'));
    url = await s.listen();
    dir = mkdtempSync(join(tmpdir(), 'presence-witness-'));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seed = async (count: number) => {
    await seedReceipts(s.composed.deps, s.tenantId, alice, count, { issuedAt: (i) => BASE + n * 1000 + i });
    n += count;
    await integrateNow(s);
  };
  const witness = (name: string) =>
    witnessOnce({
      url,
      apiKey: s.apiKey,
      stateDir: join(dir, `${name}-state`),
      key: loadOrCreateWitnessKey(join(dir, `${name}.key`), `witness.example/${name}`).key,
    });

  it('creates its key once, cosigns the first checkpoint, then every consistent one', async () => {
    expect(await witness('w1')).toEqual({ status: 'empty' });
    expect(existsSync(join(dir, 'w1.key'))).toBe(true);
    const vkey = readFileSync(join(dir, 'w1.key.pub'), 'utf8').trim();
    expect(parseVerifierKey(vkey).name).toBe('witness.example/w1');
    await seed(10);
    expect(await witness('w1')).toMatchObject({ status: 'cosigned', treeSize: 10, previousSize: null });
    await seed(300);
    expect(await witness('w1')).toMatchObject({ status: 'cosigned', treeSize: 310, previousSize: 10 });
    expect(await witness('w1')).toMatchObject({ status: 'unchanged', treeSize: 310 });
    const served = openCheckpoint((await fetchCheckpoint(s)).text, await logKeys(s), [
      parseVerifierKey(vkey),
    ]);
    expect(served.witnesses).toEqual(['witness.example/w1']);
    // The log key was pinned on first use.
    expect(readFileSync(join(dir, 'w1-state', 'log-keys'), 'utf8').trim()).toBe(
      (await logKeys(s))[0]!.toString('base64'),
    );
  });

  it('packs use a checkpoint with the witness cosignatures the tenant requires', async () => {
    const w1 = readFileSync(join(dir, 'w1.key.pub'), 'utf8').trim();
    await witness('w2');
    const w2 = readFileSync(join(dir, 'w2.key.pub'), 'utf8').trim();
    await setLogWitnesses(s.composed.deps, s.tenantId, { witnessKeys: [w1, w2], required: 2 });
    const keys = await publishedKeys(s);
    const witnessed = await fetchPack(s, RANGE);
    expect(witnessed.status).toBe(200);
    const trust = { keys, witnessKeys: [w1, w2] };
    expect((await verifyPack(witnessed.zip, { ...trust, minWitnesses: 2 })).valid).toBe(true);
    const report = await verifyPack(witnessed.zip, { keys, witnessKeys: [w1], minWitnesses: 2 });
    expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['log.witnesses']);
    // New receipts: no checkpoint covering them has two cosignatures yet.
    await seed(3);
    const refused = await fetchPack(s, RANGE);
    expect(refused.status).toBe(409);
    expect(refused.json().detail).toMatch(/witness cosignatures/);
    await witness('w1');
    await witness('w2');
    expect((await fetchPack(s, RANGE)).status).toBe(200);
    await expect(
      setLogWitnesses(s.composed.deps, s.tenantId, { witnessKeys: [w1], required: 2 }),
    ).rejects.toThrow(/required must be between 0 and the 1/);
    await setLogWitnesses(s.composed.deps, s.tenantId, { witnessKeys: [], required: 0 });
  });
});
