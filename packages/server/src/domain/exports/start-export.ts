import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import { startPosition } from '../receipts/list-receipts.js';
import type { ReceiptFilter } from '../receipts/receipt-log-ports.js';
import { resolveReceiptFilter, type ReceiptQuery } from '../receipts/resolve-receipt-filter.js';
import { recordUsage } from '../usage/record-usage.js';
import type { ExportRecord } from './ports.js';
import { measureFile, newPackState, type PackEntry, type PackState } from './pack-state.js';
import { signManifest } from './sign-manifest.js';
import { VERIFY_INSTRUCTIONS } from './verify-instructions.js';
import { writeReceiptLines } from './write-receipt-lines.js';
import { choosePackLog, writeInclusionLines } from './write-log-files.js';
import { canonicalJson } from '../encoding.js';
import { writePolicySnapshot, writeTrustSnapshot } from './write-snapshots.js';
import { packHasApprovals, writeApprovalLines } from './write-approval-lines.js';
import { PACK_APPROVALS_FILE } from '@presence/contract';

/** Receipts per read: small batches keep what survives a young collection, and so RSS, low. */
export const EXPORT_BATCH_SIZE = 200;

type ExportDeps = Pick<
  Deps,
  'store' | 'clock' | 'random' | 'signer' | 'secrets' | 'logOrigin' | 'heapBudget'
>;

/** A pack being streamed. The HTTP layer zips `entries` and reports how the download ended. */
export interface ExportPack {
  exportId: string;
  generatedAt: number;
  entries: AsyncIterable<PackEntry>;
  /** The client received the whole pack: mark the export completed and bill it, in one transaction. */
  complete(): Promise<void>;
  /** The client left or the stream broke: mark the export, bill nothing. */
  abort(status: 'aborted' | 'failed'): Promise<void>;
}

export interface ExportInput {
  query: ReceiptQuery & { from: string; to: string; logSince?: number | undefined };
  apiKeyId: string | null;
}

/**
 * Starts an export pack of the receipts issued in [from, to) that match the filters. The seq
 * window is fixed now, so the pack holds exactly the receipts committed in range at this moment,
 * in seq order, whatever arrives while it streams. Writes the export's audit row.
 */
export async function startExport(
  deps: ExportDeps,
  tenantId: string,
  input: ExportInput,
  options: { signal: AbortSignal; batchSize?: number },
): Promise<ExportPack> {
  const filter = await resolveReceiptFilter(deps, tenantId, input.query);
  const start = filter && (await startPosition(deps.store, tenantId, filter, 'asc'));
  const record: ExportRecord = {
    id: newId(deps, 'exp'),
    tenantId,
    apiKeyId: input.apiKeyId,
    status: 'running',
    rangeFrom: Date.parse(input.query.from),
    rangeTo: Date.parse(input.query.to),
    filters: manifestFilters(input.query, filter),
    snapshotSeq: await deps.store.receiptLog.lastSeq(tenantId),
    receiptCount: 0,
    manifestSha256: null,
    kid: null,
    createdAt: deps.clock.now(),
    finishedAt: null,
  };
  // Refuse (503) before any byte is sent when no key can sign a pack dated now.
  await deps.signer.ensureFresh();
  deps.signer.keyAt(record.createdAt);
  const log = await choosePackLog(deps, tenantId, record.snapshotSeq, input.query.logSince);
  await deps.store.exports.insert(record);
  const state = newPackState(record, filter, start, record.createdAt);
  state.log = log;
  state.approvals = await packHasApprovals(deps, state);
  const batchSize = options.batchSize ?? EXPORT_BATCH_SIZE;
  return {
    exportId: record.id,
    generatedAt: state.generatedAt,
    entries: packEntries(deps, state, options.signal, batchSize),
    complete: () => finishExport(deps, state, 'completed'),
    abort: (status) => finishExport(deps, state, status),
  };
}

/** The filters as the manifest records them: the credential by its service id. */
function manifestFilters(query: ReceiptQuery, filter: ReceiptFilter | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (query.subject !== undefined) out.subject = query.subject;
  if (query.actionHashHex !== undefined) out.actionHashHex = query.actionHashHex;
  if (query.credentialId !== undefined) out.credentialRef = filter?.credentialRef ?? query.credentialId;
  if (query.decision !== undefined) out.decision = query.decision;
  return out;
}

/** The data files first (hashed while they stream), then the manifest and its signature. */
async function* packEntries(
  deps: ExportDeps,
  state: PackState,
  signal: AbortSignal,
  batchSize: number,
): AsyncGenerator<PackEntry> {
  const file = (name: string, body: AsyncIterable<Buffer> | Iterable<Buffer>): PackEntry => ({
    name,
    body: measureFile(name, body, state.files),
  });
  yield file('VERIFY.txt', [Buffer.from(VERIFY_INSTRUCTIONS, 'utf8')]);
  yield file('receipts.ndjson', writeReceiptLines(deps, state, signal, batchSize));
  yield file('policy.snapshot.json', writePolicySnapshot(deps, state));
  yield file('trust.snapshot.json', writeTrustSnapshot(deps, state));
  if (state.log) {
    const log = state.log;
    yield file('log/checkpoint.txt', [Buffer.from(log.checkpoint.note, 'utf8')]);
    yield file('log/inclusion.ndjson', writeInclusionLines(deps, state, signal, batchSize));
    yield file('log/consistency.json', [Buffer.from(canonicalJson(log.consistency), 'utf8')]);
  }
  if (state.approvals) yield file(PACK_APPROVALS_FILE, writeApprovalLines(deps, state, signal));
  signal.throwIfAborted();
  const { manifestBytes, signatureBytes } = await signManifest(deps, state);
  yield { name: 'manifest.json', body: once(manifestBytes) };
  yield { name: 'manifest.sig.json', body: once(signatureBytes) };
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

/** Ends the export once; usage `receipts.exported` counts only packs delivered whole. */
async function finishExport(
  deps: ExportDeps,
  state: PackState,
  status: 'completed' | 'aborted' | 'failed',
): Promise<void> {
  const record = state.record;
  await deps.store.transaction(async (tx) => {
    const finished = await tx.exports.finish(record.tenantId, record.id, {
      status,
      receiptCount: state.receipts.count,
      manifestSha256: status === 'completed' ? state.manifestSha256 : null,
      kid: status === 'completed' ? state.kid : null,
      finishedAt: deps.clock.now(),
    });
    if (finished && status === 'completed' && state.receipts.count > 0) {
      await recordUsage(deps, tx, record.tenantId, 'receipts.exported', record.id, state.receipts.count);
    }
  });
}
