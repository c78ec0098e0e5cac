/**
 * Export packs with approvals (docs/approvals.md): an approval set decided in the pack's range is
 * a line of approvals.ndjson with the receipts it lists, named in the signed manifest; a pack
 * whose range holds none has no such file, exactly as before. Both databases.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@presence/sdk';
import { verifyPack } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { fetchPack, publishedKeys, unzipPack, zipFiles } from './support/export-pack.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describeEachDialect('export packs with approvals', (dialect) => {
  const s = useTestService(dialect, { env });

  it('adds approvals.ndjson (each set with its receipts) to the pack, named in the manifest', async () => {
    const before = new Date(s.clock.now() - 60_000).toISOString();
    const alice = (await s.enroll('x-alice')).authenticator;
    const bob = (await s.enroll('x-bob')).authenticator;
    const action = { type: 'export-me', n: 1 };
    const created = await s.request('POST', '/v1/approvals', {
      action,
      approvers: ['x-alice', 'x-bob'],
      required: 2,
    });
    const token = tokenOf(created.json.approvalUrl);
    await ceremony(s, token, 'approve', alice);
    await ceremony(s, token, 'approve', bob);
    const approval = (await s.request('GET', `/v1/approvals/${created.json.approvalId}`)).json;
    const after = new Date(s.clock.now() + 60_000).toISOString();
    s.clock.advance(120);
    try {
      const res = await fetchPack(s, `from=${before}&to=${after}`);
      expect(res.status).toBe(200);
      const report = await verifyPack(res.zip, { keys: await publishedKeys(s) });
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      const files = await unzipPack(res.zip);
      expect([...files.keys()]).toContain('approvals.ndjson');
      const manifest = JSON.parse(files.get('manifest.json')!.toString());
      expect(manifest.counts.approvalSets).toBe(1);
      const listed = manifest.files.find((f: { name: string }) => f.name === 'approvals.ndjson');
      expect(listed.sha256).toBe(sha256(files.get('approvals.ndjson')!));
      const text = files.get('approvals.ndjson')!.toString();
      const lines = text.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!);
      expect(canonicalJson(line) + '\n').toBe(text);
      expect(line.approvalSet).toEqual(approval.approvalSet);
      expect(sha256(canonicalJson(line.approvalSet.approvalSet))).toBe(line.approvalSet.approvalSetHashHex);
      expect(line.receipts).toHaveLength(2);
      for (const [i, r] of line.receipts.entries()) {
        expect(sha256(canonicalJson(r.receipt))).toBe(r.receiptHashHex);
        expect(r.receiptHashHex).toBe(line.approvalSet.approvalSet.approvals[i].receiptHashHex);
      }

      const tampered = [...files].map(([name, bytes]): [string, Buffer] =>
        name === 'approvals.ndjson'
          ? [name, Buffer.from(text.replace('"required":2', '"required":1'))]
          : [name, bytes],
      );
      const report2 = await verifyPack(await zipFiles(tampered), { keys: await publishedKeys(s) });
      expect(report2.valid).toBe(false);
      expect(report2.checks.find((c) => c.name === 'file approvals.ndjson')?.ok).toBe(false);

      const earlier = await fetchPack(s, `from=2020-01-01T00:00:00Z&to=${before}`);
      const earlierFiles = await unzipPack(earlier.zip);
      expect([...earlierFiles.keys()]).not.toContain('approvals.ndjson');
      expect(JSON.parse(earlierFiles.get('manifest.json')!.toString()).counts.approvalSets).toBeUndefined();
      expect(await verifyPack(earlier.zip, { keys: await publishedKeys(s) })).toMatchObject({ valid: true });
    } finally {
      s.clock.advance(-120);
    }
  });
});
