/**
 * presence-verify on a pack with approvals.ndjson (docs/api-contract.md#13-approvals): each line an approval set with
 * its receipts, named in the signed manifest. A pack as served, its receipts, approval sets
 * assembled from them and signed with the service's key, and the manifest re-signed with it as
 * the service signs manifests: the verifier checks every line with verifyApprovalSet.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, verifyPack, type PackReport, type ServiceKey } from '@presence/sdk/node';
import { beforeAll, expect, it } from 'vitest';
import {
  assembleApprovalSet,
  receiptOf,
  type ApprovalEvidence,
} from './support/cross-language/approval-evidence.js';
import { describeEachDialect } from './support/each-dialect.js';
import { fetchPack, publishedKeys, unzipPack, zipFiles } from './support/export-pack.js';
import { useTestService } from './support/test-service.js';

const action = { type: 'deploy', service: 'billing-api', digest: `sha256:${'ab'.repeat(32)}` };

describeEachDialect('export packs with approvals.ndjson', (dialect) => {
  const s = useTestService(dialect);
  let files: Map<string, Buffer>;
  let valid: ApprovalEvidence;
  let keys: ServiceKey[];

  beforeAll(async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const receipts = [await receiptOf(s, 'alice', action), await receiptOf(s, 'bob', action)];
    valid = assembleApprovalSet(s, action, receipts);
    const to = new Date(Date.now() + 60_000).toISOString();
    const pack = await fetchPack(s, `from=${from}&to=${to}`);
    expect(pack.status).toBe(200);
    files = await unzipPack(pack.zip);
    keys = await publishedKeys(s);
  });

  /** The served pack plus approvals.ndjson, the manifest listing it and re-signed. */
  async function withApprovals(lines: unknown[], listed?: Buffer): Promise<PackReport> {
    const body = Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''), 'utf8');
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as {
      generatedAt: string;
      files: { name: string; sha256: string; bytes: number }[];
    };
    const digest = listed ?? body;
    manifest.files.push({
      name: 'approvals.ndjson',
      sha256: createHash('sha256').update(digest).digest('hex'),
      bytes: digest.length,
    });
    const manifestBytes = Buffer.from(canonicalJson(manifest), 'utf8');
    const key = s.composed.deps.signer.keyAt(Date.parse(manifest.generatedAt));
    const signature = { alg: 'Ed25519', kid: key.kid, signatureB64Url: key.sign(manifestBytes) };
    const entries = [...files.entries()].filter(([name]) => !name.startsWith('manifest'));
    const zip = await zipFiles([
      ...entries,
      ['approvals.ndjson', body],
      ['manifest.json', manifestBytes],
      ['manifest.sig.json', Buffer.from(canonicalJson(signature), 'utf8')],
    ]);
    return verifyPack(zip, { keys });
  }
  const check = (report: PackReport, name: string) => report.checks.find((c) => c.name === name);

  it('verifies a pack as served (no approvals.ndjson) as before', async () => {
    const zip = await zipFiles([...files.entries()]);
    const report = await verifyPack(zip, { keys });
    expect(report.valid, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true);
    expect(check(report, 'approvals.verify')).toBeUndefined();
  });

  it('checks every approval set of approvals.ndjson with its receipts', async () => {
    const report = await withApprovals([valid, valid]);
    expect(report.valid, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true);
    expect(check(report, 'approvals.verify')).toMatchObject({ ok: true });
    expect(check(report, 'file approvals.ndjson')).toMatchObject({ ok: true });
  });

  it('fails a pack holding a set that counts the initiator, or for another tenant', async () => {
    const counted = assembleApprovalSet(s, action, valid.receipts, { initiator: 'alice' });
    const report = await withApprovals([valid, counted]);
    expect(report.valid).toBe(false);
    expect(check(report, 'approvals.verify')?.detail).toContain('initiatorExcluded');
    const other = assembleApprovalSet(s, action, valid.receipts, {
      tenantId: 'ten_01KAXN6Y7V3J0Q7ZKZ8D2W4C5B',
    });
    expect(check(await withApprovals([other]), 'approvals.scope')).toMatchObject({ ok: false });
  });

  it('fails when approvals.ndjson is not the file the manifest names', async () => {
    const report = await withApprovals([valid], Buffer.from('{}\n'));
    expect(check(report, 'file approvals.ndjson')).toMatchObject({ ok: false });
    expect(report.valid).toBe(false);
  });
});
