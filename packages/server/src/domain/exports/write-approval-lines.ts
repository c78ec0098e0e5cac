import type { Deps } from '../deps.js';
import type { ApprovalSetRecord } from '../approvals/ports.js';
import type { PackState } from './pack-state.js';

/** Approval sets per read. */
const APPROVAL_PAGE = 100;

/** The approval sets a pack holds: decided in the pack's range, with its actionHashHex filter if any. */
export async function packHasApprovals(deps: Pick<Deps, 'store'>, state: PackState): Promise<boolean> {
  return (await nextSets(deps, state, undefined, 1)).length > 0;
}

async function nextSets(
  deps: Pick<Deps, 'store'>,
  state: PackState,
  after: { decidedAt: number; approvalId: string } | undefined,
  limit: number,
): Promise<ApprovalSetRecord[]> {
  const { record } = state;
  const wanted = record.filters.actionHashHex;
  for (let cursor = after; ;) {
    const page = await deps.store.approvals.sets.listDecided(
      record.tenantId,
      { from: record.rangeFrom, to: Math.min(record.rangeTo, record.createdAt + 1) },
      { limit: Math.max(limit, APPROVAL_PAGE), after: cursor },
    );
    const kept = wanted === undefined ? page : page.filter((s) => actionOf(s) === wanted);
    if (kept.length > 0 || page.length < Math.max(limit, APPROVAL_PAGE)) return kept;
    const last = page.at(-1)!;
    cursor = { decidedAt: last.decidedAt, approvalId: last.approvalId };
  }
}

/** In canonical JSON a quote inside a string is escaped, so this key can only be the set's own. */
const ACTION_HASH = /"actionHashHex":"([0-9a-f]{64})"/;
const actionOf = (s: ApprovalSetRecord) => ACTION_HASH.exec(s.canonicalJson)?.[1];

/**
 * approvals.ndjson: one RFC 8785 line per approval set decided in the pack's range (oldest first),
 * `{"approvalSet": {approvalSet, approvalSetHashHex, signature}, "receipts": [{receipt,
 * receiptHashHex, signature}, …]}`, each receipt the one the set lists, embedded as stored (the
 * exact signed bytes). Keys are written in RFC 8785 order. Counts the sets for the manifest.
 */
export async function* writeApprovalLines(
  deps: Pick<Deps, 'store'>,
  state: PackState,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  let after: { decidedAt: number; approvalId: string } | undefined;
  for (;;) {
    signal.throwIfAborted();
    const sets = await nextSets(deps, state, after, APPROVAL_PAGE);
    if (sets.length === 0) return;
    const lines: string[] = [];
    for (const set of sets) lines.push(await approvalLine(deps, set));
    state.approvalSetCount += sets.length;
    yield Buffer.from(lines.join(''), 'utf8');
    const last = sets.at(-1)!;
    after = { decidedAt: last.decidedAt, approvalId: last.approvalId };
  }
}

async function approvalLine(deps: Pick<Deps, 'store'>, set: ApprovalSetRecord): Promise<string> {
  const listed = (JSON.parse(set.canonicalJson) as { approvals: { receiptId: string }[] }).approvals;
  const receipts: string[] = [];
  for (const { receiptId } of listed) {
    const r = await deps.store.receipts.get(set.tenantId, receiptId);
    if (!r) throw new Error(`approval set ${set.approvalId} lists receipt ${receiptId}, which is missing`);
    receipts.push(
      `{"receipt":${r.canonicalJson},"receiptHashHex":"${r.hashHex}","signature":${signatureOf(r)}}`,
    );
  }
  return `{"approvalSet":{"approvalSet":${set.canonicalJson},"approvalSetHashHex":"${set.hashHex}","signature":${signatureOf(set)}},"receipts":[${receipts.join(',')}]}\n`;
}

function signatureOf(s: { kid: string; signatureB64Url: string }): string {
  return `{"alg":"Ed25519","kid":${JSON.stringify(s.kid)},"signatureB64Url":${JSON.stringify(s.signatureB64Url)}}`;
}
