import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ExportManifest, PolicySnapshot, TrustCredential } from '#contract';
import { canonicalJson } from '../canonical-json.js';
import { verifyReceipt } from '../verify-receipt.js';
import type { Tally } from './pack-checks.js';
import type { TrustedKey } from './trusted-keys.js';

type Policy = PolicySnapshot['policies'][number];
type Fields = Record<string, unknown>;

export interface LineContext {
  manifest: ExportManifest | null;
  credentials: Map<string, TrustCredential>;
  policies: Map<string, Policy>;
  keys: readonly TrustedKey[];
  tally: Tally;
}

export interface LineSummary {
  sha256: string;
  bytes: number;
  count: number;
  firstSeq: number | null;
  lastSeq: number | null;
  firstIssuedAt: string | null;
  lastIssuedAt: string | null;
}

/**
 * One streaming pass over receipts.ndjson: hashes the raw bytes for the manifest check and checks
 * each line as it goes, so memory grows only with the set of receipt ids.
 */
export async function checkReceiptLines(stream: Readable, ctx: LineContext): Promise<LineSummary> {
  const hash = createHash('sha256');
  const summary: LineSummary = {
    sha256: '',
    bytes: 0,
    count: 0,
    firstSeq: null,
    lastSeq: null,
    firstIssuedAt: null,
    lastIssuedAt: null,
  };
  const seen = new Set<string>();
  let pending = '';
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    summary.bytes += bytes.length;
    const lines = (pending + decoder.decode(bytes, { stream: true })).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) checkLine(line, ++summary.count, ctx, summary, seen);
  }
  pending += decoder.decode();
  if (pending !== '') {
    ctx.tally.fail('receipts.parse', `the file does not end with a newline (line ${summary.count + 1})`);
    checkLine(pending, ++summary.count, ctx, summary, seen);
  }
  summary.sha256 = hash.digest('hex');
  return summary;
}

function checkLine(line: string, n: number, ctx: LineContext, summary: LineSummary, seen: Set<string>): void {
  let parsed: Fields;
  try {
    parsed = JSON.parse(line) as Fields;
    if (canonicalJson(parsed) !== line) throw new Error('not in RFC 8785 canonical form');
  } catch (error) {
    ctx.tally.fail('receipts.parse', `line ${n}: ${(error as Error).message}`);
    return;
  }
  const receipt = (parsed.receipt ?? {}) as Fields;
  const id = String(receipt.receiptId);
  const seq = parsed.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || typeof receipt.receiptId !== 'string') {
    ctx.tally.fail('receipts.parse', `line ${n}: no integer seq or receiptId`);
    return;
  }
  checkOrder(ctx.tally, summary, seen, id, seq, n);
  summary.firstSeq ??= seq;
  summary.firstIssuedAt ??= String(receipt.issuedAt);
  summary.lastSeq = seq;
  summary.lastIssuedAt = String(receipt.issuedAt);
  const report = verifyReceipt(
    { receipt, receiptHashHex: parsed.receiptHashHex as string, signature: parsed.signature as Fields },
    { keys: ctx.keys },
  );
  if (!report.valid) {
    const failed = Object.entries(report.checks).filter(([, c]) => !c.ok);
    ctx.tally.fail(
      'receipts.verify',
      `line ${n} (${id}): ${failed.map(([k, c]) => `${k}: ${c.detail}`).join(', ')}`,
    );
  }
  checkChallenge(ctx.tally, parsed.challenge as Fields | undefined, receipt, n);
  checkScope(ctx, receipt, n);
  checkReferences(ctx, receipt, n);
}

function checkOrder(
  tally: Tally,
  summary: LineSummary,
  seen: Set<string>,
  id: string,
  seq: number,
  n: number,
) {
  if (seen.has(id)) tally.fail('receipts.unique', `line ${n}: receipt ${id} appears again`);
  seen.add(id);
  if (summary.lastSeq !== null && seq <= summary.lastSeq) {
    tally.fail('receipts.unique', `line ${n}: seq ${seq} does not follow ${summary.lastSeq}`);
  }
}

function checkChallenge(tally: Tally, challenge: Fields | undefined, r: Fields, n: number): void {
  const same =
    challenge !== undefined &&
    challenge.challengeId === r.challengeId &&
    challenge.actionHashHex === r.actionHashHex &&
    challenge.receiptId === r.receiptId &&
    challenge.decision === 'PRESENCE_VERIFIED' &&
    challenge.status === 'verified';
  if (!same) tally.fail('receipts.verify', `line ${n}: the challenge record does not match its receipt`);
}

/** The receipt belongs to the manifest's tenant, time range and filters. */
function checkScope(ctx: LineContext, r: Fields, n: number): void {
  const m = ctx.manifest;
  if (!m) return;
  const issued = Date.parse(String(r.issuedAt));
  const f = m.filters;
  const problems = [
    r.tenantId !== m.tenantId && `tenant ${String(r.tenantId)}`,
    !(issued >= Date.parse(m.range.from) && issued < Date.parse(m.range.to)) &&
      `issuedAt ${String(r.issuedAt)} outside the range`,
    f.subject !== undefined && r.subject !== f.subject && 'subject differs from the filter',
    f.actionHashHex !== undefined &&
      r.actionHashHex !== f.actionHashHex &&
      'actionHashHex differs from the filter',
    f.credentialRef !== undefined &&
      r.credentialRef !== f.credentialRef &&
      'credential differs from the filter',
    f.decision !== undefined && r.decision !== f.decision && 'decision differs from the filter',
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0) ctx.tally.fail('receipts.scope', `line ${n}: ${problems.join(', ')}`);
}

/** The credential and policy a receipt names are in the snapshots, with the same key and hash. */
function checkReferences(ctx: LineContext, r: Fields, n: number): void {
  const c = ctx.credentials.get(String(r.credentialRef));
  if (
    !c ||
    c.credentialId !== r.credentialId ||
    c.publicKeyB64Url !== r.credentialPublicKeyB64Url ||
    c.subject !== r.subject
  ) {
    ctx.tally.fail(
      'trust.credentials',
      `line ${n}: credential ${String(r.credentialRef)} is missing from trust.snapshot.json or differs`,
    );
  }
  const p = ctx.policies.get(String(r.policyId));
  if (!p || p.version !== r.policyVersion || p.hashHex !== r.policyHashHex) {
    ctx.tally.fail(
      'policy.references',
      `line ${n}: policy ${String(r.policyId)} is missing from policy.snapshot.json or differs`,
    );
  }
}
