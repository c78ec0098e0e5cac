/**
 * `approvals.ndjson` of an export pack (docs/api-contract.md#13-approvals), when its manifest lists it: one approval
 * set per line with the receipts it lists, `{"approvalSet": {approvalSet, approvalSetHashHex,
 * signature}, "receipts": [{receipt, receiptHashHex, signature}, …]}`. Every line is checked with
 * verifyApprovalSet against the trusted keys (never the pack's own), and must be the manifest's
 * tenant. Lines stream by, so memory stays flat; the file's digest is checked against the manifest.
 */
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { PACK_APPROVALS_FILE, type ExportManifest, type ServiceKey } from '#contract';
import { verifyApprovalSet } from '../verify-approval-set.js';
import type { CheckList, Tally } from './pack-checks.js';

/** A pack has approval sets when its signed manifest lists the file; older packs have none. */
export function hasApprovals(manifest: ExportManifest | null): boolean {
  return manifest?.files.some((f) => f.name === PACK_APPROVALS_FILE) ?? false;
}

export async function checkApprovalLines(
  stream: Readable,
  options: { manifest: ExportManifest | null; keys: readonly ServiceKey[]; tally: Tally },
): Promise<{ sha256: string; bytes: number; count: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  let count = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line === '') continue;
    count += 1;
    let evidence: unknown;
    try {
      evidence = JSON.parse(line);
    } catch {
      options.tally.fail('approvals.parse', `line ${count} is not JSON`);
      continue;
    }
    const report = verifyApprovalSet(evidence as Parameters<typeof verifyApprovalSet>[0], {
      keys: options.keys,
    });
    const failed = Object.entries(report.checks)
      .filter(([, c]) => !c.ok)
      .map(([name]) => name);
    if (!report.valid)
      options.tally.fail(
        'approvals.verify',
        `line ${count} (${report.approvalId ?? 'no id'}): ${failed.join(', ')}`,
      );
    const tenantId = (evidence as { approvalSet?: { approvalSet?: { tenantId?: unknown } } }).approvalSet
      ?.approvalSet?.tenantId;
    if (options.manifest && tenantId !== options.manifest.tenantId) {
      options.tally.fail('approvals.scope', `line ${count} is for tenant ${String(tenantId)}`);
    }
  }
  return { sha256: hash.digest('hex'), bytes, count };
}

export function reportApprovals(list: CheckList, tally: Tally, count: number): void {
  tally.report(list, 'approvals.parse', `${count} lines`);
  tally.report(list, 'approvals.verify', `every approval set verifies with its receipts (${count})`);
  tally.report(list, 'approvals.scope', "every approval set is the manifest's tenant");
}
