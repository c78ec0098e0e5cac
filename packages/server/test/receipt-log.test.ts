/**
 * The per-tenant receipt log over HTTP (docs/api-contract.md#11-the-receipt-log) on both databases: checkpoints signed by
 * the log key of keys.json, inclusion proofs for every leaf and consistency proofs between sizes
 * checked with the SDK verifier against a root recomputed from the receipts themselves, the
 * receipt's own `log` entry, tiles, cosignatures, scopes and tenants.
 */
import { generateKeyPairSync } from 'node:crypto';
import {
  cosignCheckpoint,
  formatVerifierKey,
  openCheckpoint,
  parseVerifierKey,
  receiptLeafHash,
  rootFromLeafHashes,
  SIG_TYPE_COSIGNATURE_V1,
  verifyConsistency,
  verifyInclusion,
} from '@presence/sdk/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { receiptLogIntegrationLagSeconds } from '../src/domain/receipt-log/receipt-log-lag.js';
import { fetchCheckpoint, integrateNow, logKeys } from './support/receipt-log.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { describeEachDialect } from './support/each-dialect.js';
import { startTestService, type TestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const b64 = (list: string[]) => list.map((h) => Buffer.from(h, 'base64'));

describeEachDialect('receipt log', (dialect) => {
  let s: TestService;
  let alice: SoftAuthenticator;
  let hashes: string[] = [];
  let keys: Buffer[];
  beforeAll(async () => {
    s = await startTestService(dialect);
    ({ authenticator: alice } = await s.enroll('alice'));
    const first = await seedReceipts(s.composed.deps, s.tenantId, alice, 37, { issuedAt: (i) => BASE + i });
    hashes = first.map((r) => r.hashHex);
  });
  afterAll(async () => s.close());

  it('has no checkpoint before anything is integrated, then one signed by the log key of keys.json', async () => {
    expect((await fetchCheckpoint(s)).status).toBe(404);
    // The seeded receipts are dated BASE (a minute ahead); a minute past that they are 60 s overdue.
    s.clock.advance(120);
    expect(await receiptLogIntegrationLagSeconds(s.composed.deps)).toBeGreaterThanOrEqual(60);
    s.clock.advance(-120);
    await integrateNow(s);
    expect(await receiptLogIntegrationLagSeconds(s.composed.deps)).toBe(0);
    keys = await logKeys(s);
    expect(keys).toHaveLength(1);
    const res = await fetchCheckpoint(s);
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; charset=utf-8');
    const cp = openCheckpoint(res.text, keys);
    expect(cp.origin).toBe(`localhost/presence/${s.tenantId}`);
    expect(cp.treeSize).toBe(37);
    expect(cp.rootHash).toEqual(rootFromLeafHashes(hashes.map(receiptLeafHash)));
  });

  it('proves every leaf included, against a root recomputed from the receipts', async () => {
    const root = rootFromLeafHashes(hashes.map(receiptLeafHash));
    for (let i = 0; i < hashes.length; i++) {
      const res = await s.request('GET', `/v1/presence/log/proof/inclusion?leafIndex=${i}&treeSize=37`);
      expect(res.status).toBe(200);
      verifyInclusion(i, 37, receiptLeafHash(hashes[i]!), b64(res.json.hashes), root);
    }
  });

  it('grows with new receipts and proves consistency between every pair of checkpointed sizes', async () => {
    const more = await seedReceipts(s.composed.deps, s.tenantId, alice, 300, {
      issuedAt: (i) => BASE + 100 + i,
    });
    hashes = [...hashes, ...more.map((r) => r.hashHex)];
    await integrateNow(s);
    const cp = openCheckpoint((await fetchCheckpoint(s)).text, keys);
    expect(cp.treeSize).toBe(337);
    const roots = (n: number) => rootFromLeafHashes(hashes.slice(0, n).map(receiptLeafHash));
    for (const [a, b] of [
      [37, 337],
      [1, 337],
      [256, 337],
      [37, 37],
      [0, 337],
      [200, 300],
    ] as const) {
      const res = await s.request('GET', `/v1/presence/log/proof/consistency?from=${a}&to=${b}`);
      expect(res.status, `${a}→${b}`).toBe(200);
      verifyConsistency(a, b, b64(res.json.hashes), roots(a), roots(b));
    }
  });

  it('adds the leaf index and an inclusion proof to GET of a receipt once integrated', async () => {
    const [late] = await seedReceipts(s.composed.deps, s.tenantId, alice, 1, {
      issuedAt: () => BASE + 1000,
    });
    const before = await s.request('GET', `/v1/presence/receipts/${late!.id}`);
    expect(before.status).toBe(200);
    expect(before.json.log).toBeUndefined();
    await integrateNow(s);
    const after = await s.request('GET', `/v1/presence/receipts/${late!.id}`);
    const log = after.json.log;
    expect(log).toMatchObject({ leafIndex: 337, treeSize: 338 });
    const cp = openCheckpoint(log.checkpoint, keys);
    verifyInclusion(
      337,
      338,
      receiptLeafHash(after.json.receiptHashHex),
      b64(log.inclusionProof),
      cp.rootHash,
    );
    hashes.push(late!.hashHex);
  });

  it('serves C2SP tlog-tiles tiles and entry bundles that rebuild the root', async () => {
    const full = await s.composed.app.inject({
      method: 'GET',
      url: '/v1/presence/log/tile/0/000',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(full.statusCode).toBe(200);
    expect(full.rawPayload.length).toBe(256 * 32);
    expect(full.rawPayload.subarray(0, 32)).toEqual(receiptLeafHash(hashes[0]!));
    const partial = await s.composed.app.inject({
      method: 'GET',
      url: '/v1/presence/log/tile/0/001.p/82',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(partial.statusCode).toBe(200);
    expect(partial.rawPayload.subarray(81 * 32)).toEqual(receiptLeafHash(hashes[337]!));
    const entries = await s.composed.app.inject({
      method: 'GET',
      url: '/v1/presence/log/tile/entries/001.p/82',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(entries.rawPayload.subarray(0, 34)).toEqual(
      Buffer.concat([Buffer.of(0, 32), Buffer.from(hashes[256]!, 'hex')]),
    );
    const level1 = await s.composed.app.inject({
      method: 'GET',
      url: '/v1/presence/log/tile/1/000.p/1',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(level1.rawPayload).toEqual(rootFromLeafHashes(hashes.slice(0, 256).map(receiptLeafHash)));
    for (const bad of ['0/001', '0/002.p/1', '0/1', '64/000', '0/000.p/256']) {
      const res = await s.composed.app.inject({
        method: 'GET',
        url: `/v1/presence/log/tile/${bad}`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      expect(res.statusCode, bad).toBe(404);
    }
  });

  it('stores a valid witness cosignature and serves it with the checkpoint; refuses bad ones', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const witnessKey = formatVerifierKey('witness.example/w1', SIG_TYPE_COSIGNATURE_V1, raw);
    const served = (await fetchCheckpoint(s)).text;
    const body = served.slice(0, served.indexOf('\n\n') + 1);
    const line = cosignCheckpoint(
      body,
      { name: 'witness.example/w1', privateKey, rawPublicKey: raw },
      1_700_000_000,
    );
    const post = (b: object) => s.request('POST', '/v1/presence/log/cosignatures', b);
    const first = await post({ checkpoint: served, cosignature: line, witnessKey });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect((await post({ checkpoint: served, cosignature: line, witnessKey })).status).toBe(200);
    const withWitness = (await fetchCheckpoint(s)).text;
    expect(withWitness).toBe(served + line);
    expect(openCheckpoint(withWitness, keys, [parseVerifierKey(witnessKey)]).witnesses).toEqual([
      'witness.example/w1',
    ]);
    const forged = body.replace(/\n[^\n]+\n$/, `\n${Buffer.alloc(32, 7).toString('base64')}\n`);
    expect((await post({ checkpoint: forged, cosignature: line, witnessKey })).status).toBe(409);
    const at = line.length - 30;
    const flipped = line.slice(0, at) + (line[at] === 'A' ? 'B' : 'A') + line.slice(at + 1);
    const refused = await post({ checkpoint: served, cosignature: flipped, witnessKey });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].field).toBe('cosignature');
    expect((await post({ checkpoint: served, cosignature: 'nonsense', witnessKey })).status).toBe(400);
    expect((await post({ checkpoint: served, cosignature: line, witnessKey: 'x+y+z' })).status).toBe(400);
  });

  it('validates queries, needs receipts:read, and keeps tenants apart', async () => {
    for (const q of [
      'leafIndex=5&treeSize=5',
      'leafIndex=0&treeSize=100000',
      'leafIndex=-1&treeSize=3',
      'treeSize=3',
    ]) {
      const res = await s.request('GET', `/v1/presence/log/proof/inclusion?${q}`);
      expect([400, 404], q).toContain(res.status);
    }
    expect((await s.request('GET', '/v1/presence/log/proof/consistency?from=9&to=3')).status).toBe(400);
    const noScope = await s.keyWith(['challenges:write']);
    expect((await fetchCheckpoint(s, noScope)).status).toBe(403);
    expect((await s.request('GET', '/v1/presence/log/checkpoint', undefined, '')).status).toBe(401);
    const other = await s.newTenant();
    expect((await fetchCheckpoint(s, other.apiKey)).status).toBe(404);
    expect(
      (
        await s.request(
          'GET',
          '/v1/presence/log/proof/inclusion?leafIndex=0&treeSize=1',
          undefined,
          other.apiKey,
        )
      ).status,
    ).toBe(404);
  });
});
