/**
 * GET /v1/presence/receipts/export on both databases: a streamed zip that the offline verifier
 * accepts, the audit row and usage it leaves, its refusals, a client that disconnects, and packs
 * and receipts that still verify after the signing key rotates.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyPack, verifyReceipt } from '@presence/sdk/node';
import { PACK_DATA_FILES, PACK_LOG_FILES } from '@presence/contract';
import { beforeAll, expect, it } from 'vitest';
import {
  DEFAULT_ROTATION_LEAD_MS,
  DEFAULT_ROTATION_OVERLAP_MS,
  rotateSigningKey,
} from '../src/domain/receipts/rotate-signing-key.js';
import { startExport } from '../src/domain/exports/start-export.js';
import { describeEachDialect } from './support/each-dialect.js';
import { fetchPack, publishedKeys, settledExport, unzipPack } from './support/export-pack.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const RANGE = `from=${iso(BASE)}&to=${iso(BASE + 3_600_000)}`;

describeEachDialect('export pack', (dialect) => {
  const s = useTestService(dialect);
  let alice: SoftAuthenticator;
  beforeAll(async () => {
    ({ authenticator: alice } = await s.enroll('alice'));
    const { authenticator: bob } = await s.enroll('bob');
    await seedReceipts(s.composed.deps, s.tenantId, alice, 40, { issuedAt: (i) => BASE + i * 1000 });
    await seedReceipts(s.composed.deps, s.tenantId, bob, 5, { issuedAt: (i) => BASE + 100_000 + i });
  });

  it('streams a zip that verifies offline, records the export and bills the receipts once', async () => {
    const res = await fetchPack(s, RANGE);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const exportId = String(res.headers['x-presence-export-id']);
    const report = await verifyPack(res.zip, { keys: await publishedKeys(s) });
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report).toMatchObject({ valid: true, exportId, tenantId: s.tenantId, receipts: 45 });
    const files = await unzipPack(res.zip);
    expect([...files.keys()]).toEqual([
      ...PACK_DATA_FILES,
      ...PACK_LOG_FILES,
      'manifest.json',
      'manifest.sig.json',
    ]);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    expect(manifest).toMatchObject({
      exportId,
      range: { from: iso(BASE), to: iso(BASE + 3_600_000) },
      counts: { receipts: 45, credentials: 2, policies: 1 },
      receipts: { firstIssuedAt: iso(BASE), lastIssuedAt: iso(BASE + 100_004) },
    });
    const lines = files.get('receipts.ndjson')!.toString().trimEnd().split('\n');
    const first = JSON.parse(lines[0]!);
    expect(verifyReceipt(first, { keys: await publishedKeys(s) }).valid).toBe(true);
    const audit = await settledExport(s, exportId);
    expect(audit).toMatchObject({ status: 'completed', receipt_count: 45, tenant_id: s.tenantId });
    const usage = (await s.testStore.rows('usage_events')).filter((u) => u.source_id === exportId);
    expect(usage).toMatchObject([{ meter: 'receipts.exported', quantity: 45 }]);
  });

  it('tells the heap budget after every page of both walks (receipts, inclusion proofs)', async () => {
    let pagesSeen = 0;
    const deps = { ...s.composed.deps, heapBudget: { afterPage: () => void (pagesSeen += 1) } };
    const query = { from: iso(BASE), to: iso(BASE + 3_600_000) };
    const pack = await startExport(
      deps,
      s.tenantId,
      { query, apiKeyId: null },
      {
        signal: new AbortController().signal,
        batchSize: 10,
      },
    );
    const lines = new Map<string, number>();
    for await (const entry of pack.entries) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry.body) chunks.push(chunk);
      lines.set(entry.name, Buffer.concat(chunks).toString().split('\n').length - 1);
    }
    await pack.complete();
    // A walk reads pages of 10 until one comes back short: n rows take ⌊n / 10⌋ + 1 reads.
    expect(lines.get('receipts.ndjson')).toBe(45);
    expect(lines.get('log/inclusion.ndjson')).toBe(45);
    expect(pagesSeen).toBe(5 + 5);
  });

  it('applies the filters, records them in the manifest, and packs an empty range too', async () => {
    const res = await fetchPack(s, `${RANGE}&subject=bob`);
    const report = await verifyPack(res.zip, { keys: await publishedKeys(s) });
    expect(report).toMatchObject({ valid: true, receipts: 5 });
    const manifest = JSON.parse((await unzipPack(res.zip)).get('manifest.json')!.toString());
    expect(manifest.filters).toEqual({ subject: 'bob' });
    const empty = await fetchPack(s, `from=${iso(BASE - 10_000)}&to=${iso(BASE)}`);
    expect(await verifyPack(empty.zip, { keys: await publishedKeys(s) })).toMatchObject({
      valid: true,
      receipts: 0,
    });
    const denied = await fetchPack(s, `${RANGE}&decision=USER_NOT_VERIFIED`);
    expect(await verifyPack(denied.zip, { keys: await publishedKeys(s) })).toMatchObject({
      valid: true,
      receipts: 0,
    });
  });

  it('refuses a missing or empty range, a wrong scope and no key; other tenants see nothing', async () => {
    const missing = await fetchPack(s, `from=${iso(BASE)}`);
    expect(missing.status).toBe(400);
    expect(missing.json().errors).toEqual([
      { field: 'querystring/to', message: "must have required property 'to'" },
    ]);
    expect((await fetchPack(s, `from=${iso(BASE)}&to=${iso(BASE)}`)).status).toBe(400);
    expect((await fetchPack(s, RANGE, await s.keyWith(['receipts:read']))).status).toBe(403);
    expect((await fetchPack(s, RANGE, '')).status).toBe(401);
    const other = await s.newTenant();
    const res = await fetchPack(s, RANGE, other.apiKey);
    expect(await verifyPack(res.zip, { keys: await publishedKeys(s) })).toMatchObject({
      valid: true,
      tenantId: other.tenantId,
      receipts: 0,
    });
  });

  // Seeding 6000 receipts takes ~25 s on a loaded 2-core box; the pack then integrates them into the log.
  it('stops reading and bills nothing when the client disconnects', { timeout: 120_000 }, async () => {
    const { authenticator } = await s.enroll('bulk');
    // More than loopback socket buffers hold, so the server is still reading when the client leaves.
    await seedReceipts(s.composed.deps, s.tenantId, authenticator, 6000, {
      issuedAt: (i) => BASE + 200_000 + i,
      batch: 1000,
    });
    await s.composed.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = s.composed.app.server.address() as AddressInfo;
    const exportId = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          path: `/v1/presence/receipts/export?${RANGE}`,
          headers: { authorization: `Bearer ${s.apiKey}` },
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve(String(res.headers['x-presence-export-id']));
          });
        },
      );
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
      req.end();
    });
    const audit: any = await settledExport(s, exportId);
    expect(audit).toMatchObject({ status: 'aborted' });
    expect(audit.receipt_count).toBeLessThan(6045);
    expect((await s.testStore.rows('usage_events')).filter((u) => u.source_id === exportId)).toEqual([]);
  });

  it('after a key rotation, old receipts and old packs still verify against the published keys', async () => {
    const range = `from=${iso(BASE)}&to=${iso(BASE + 60_000)}`;
    const before = await fetchPack(s, range);
    const oldKey = (await publishedKeys(s))[0];
    // The seeded receipts are dated up to an hour ahead: rotate after all of them were issued.
    s.clock.advance(7200);
    const rotation = await rotateSigningKey(s.composed.deps, s.composed.deps.signer.refreshMs);
    await s.composed.deps.signer.refresh();
    // Published ahead of the switch, while the old key still signs.
    const scheduled = await publishedKeys(s);
    const receiptKeys = scheduled.filter((k: any) => k.use !== 'log');
    expect(receiptKeys.map((k: any) => [k.kid, k.status])).toEqual([
      [oldKey.kid, 'active'],
      [rotation.kid, 'next'],
    ]);
    s.clock.advance((DEFAULT_ROTATION_LEAD_MS + DEFAULT_ROTATION_OVERLAP_MS) / 1000);
    await s.composed.deps.signer.refresh();
    const keys = await publishedKeys(s);
    const logPem = keys.find((k: any) => k.use === 'log').publicKeyPem;
    expect(keys.map((k: any) => `${k.use ?? 'receipts'} ${k.status}`)).toEqual([
      'receipts active',
      'receipts retired',
      'log active',
    ]);
    expect(keys[1]).toMatchObject({ kid: oldKey.kid, notAfter: expect.any(String) });
    const after = await fetchPack(s, range);
    const newPem = keys[0].publicKeyPem;
    expect(await verifyPack(before.zip, { keys })).toMatchObject({ valid: true, receipts: 40 });
    expect(await verifyPack(after.zip, { keys })).toMatchObject({ valid: true, receipts: 40 });
    const manifest = JSON.parse((await unzipPack(after.zip)).get('manifest.json')!.toString());
    expect(manifest.signing.kid).toBe(keys[0].kid);
    // Pinned PEMs: the receipts were signed by the old key, so the new key alone is not enough.
    const pinned = (pems: string[]) => ({ pinnedPublicKeyPem: pems, pinnedLogKeyPem: [logPem] });
    expect((await verifyPack(after.zip, pinned([newPem]))).valid).toBe(false);
    expect((await verifyPack(after.zip, pinned([newPem, oldKey.publicKeyPem]))).valid).toBe(true);
    expect((await verifyPack(before.zip, pinned([oldKey.publicKeyPem]))).valid).toBe(true);
    // Without a trusted log key the checkpoint, and so the pack, does not verify.
    const unlogged = await verifyPack(before.zip, { pinnedPublicKeyPem: oldKey.publicKeyPem });
    expect(unlogged.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([
      'log.checkpoint',
      'log.consistency',
    ]);
  });
});
