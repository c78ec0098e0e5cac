import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { ExportManifest } from '#contract';
import { openCheckpoint, type OpenedCheckpoint } from '../log/open-checkpoint.js';
import { verifyConsistency, verifyInclusion } from '../log/verify-proofs.js';
import type { VerifierKey } from '../log/signed-note.js';
import { canonicalJson } from '../canonical-json.js';
import type { CheckList } from './pack-checks.js';
import { Tally } from './pack-checks.js';

/** What the log checks trust and demand, beyond the pack itself. */
export interface LogTrust {
  /** The service's log public keys (raw Ed25519), e.g. the `use: "log"` entries of keys.json. */
  logKeys: readonly Uint8Array[];
  /** A checkpoint the auditor saved earlier: the pack's must extend it (presence-verify --since). */
  since?: string | undefined;
  /** Witnesses the auditor trusts, and how many of them must have cosigned the pack's checkpoint. */
  witnesses?: readonly VerifierKey[] | undefined;
  minWitnesses?: number | undefined;
  /**
   * Fetches the consistency proof between two tree sizes from the service (presence-verify
   * --url), for a pack exported without `logSince`. Only hashes come from it: the proof is checked
   * against the saved and the pack's signed checkpoints, so the service is not trusted.
   */
  fetchConsistency?: ((from: number, to: number) => Promise<ConsistencyProof>) | undefined;
}

export interface ConsistencyProof {
  from: number;
  to: number;
  hashes: string[];
}

/** One receipt of receipts.ndjson as the log sees it: seq, id, and the hash recomputed from it. */
export interface LoggedLine {
  seq: number;
  receiptId: string;
  leafHash: Buffer;
}

/**
 * The receipt-log part of a pack: the checkpoint is signed by a trusted log key for this tenant's
 * origin and covers every receipt; every receipt (in order) has a valid inclusion proof of the
 * hash recomputed from it; an unfiltered pack has a receipt for every leaf of its seq window; the
 * consistency proof extends the auditor's saved checkpoint; enough trusted witnesses cosigned.
 */
export async function checkLogFiles(
  list: CheckList,
  files: { checkpoint: Buffer; consistency: Buffer; inclusion: Readable },
  manifest: ExportManifest,
  receipts: readonly LoggedLine[],
  trust: LogTrust,
): Promise<{ inclusion: { sha256: string; bytes: number } }> {
  const cp = checkCheckpoint(list, files.checkpoint.toString('utf8'), manifest, trust);
  const inclusion = await checkInclusionLines(list, files.inclusion, receipts, cp);
  checkCoverage(list, manifest, receipts);
  await checkConsistency(list, files.consistency, cp, trust);
  return { inclusion };
}

function checkCheckpoint(list: CheckList, note: string, manifest: ExportManifest, trust: LogTrust) {
  let cp: OpenedCheckpoint | undefined;
  try {
    cp = openCheckpoint(note, trust.logKeys, trust.witnesses ?? []);
  } catch (error) {
    list.fail('log.checkpoint', `log/checkpoint.txt: ${(error as Error).message}`);
    return undefined;
  }
  const ownOrigin = cp.origin.endsWith(`/presence/${manifest.tenantId}`);
  const covers = cp.treeSize >= (manifest.receipts.lastSeq ?? 0);
  list.add(
    'log.checkpoint',
    ownOrigin && covers,
    !ownOrigin
      ? `the checkpoint is of ${cp.origin}, not of tenant ${manifest.tenantId}`
      : !covers
        ? `the checkpoint's ${cp.treeSize} leaves do not cover seq ${String(manifest.receipts.lastSeq)}`
        : `${cp.origin}, ${cp.treeSize} leaves, signed by the service log key`,
  );
  const needed = trust.minWitnesses ?? 0;
  list.add(
    'log.witnesses',
    cp.witnesses.length >= needed,
    `${cp.witnesses.length} trusted witness cosignature(s)${cp.witnesses.length > 0 ? ` (${cp.witnesses.join(', ')})` : ''}, ${needed} required`,
  );
  return cp;
}

async function checkInclusionLines(
  list: CheckList,
  stream: Readable,
  receipts: readonly LoggedLine[],
  cp: OpenedCheckpoint | undefined,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const tally = new Tally();
  let bytes = 0;
  let pending = '';
  let n = 0;
  const check = (line: string) => {
    const r = receipts[n];
    n += 1;
    if (!r) return tally.fail('log.inclusion', `line ${n}: no receipt at this position of receipts.ndjson`);
    try {
      const parsed = JSON.parse(line) as { receiptId?: unknown; leafIndex?: unknown; hashes?: unknown };
      if (canonicalJson(parsed) !== line) throw new Error('not in RFC 8785 canonical form');
      if (parsed.receiptId !== r.receiptId || parsed.leafIndex !== r.seq - 1)
        throw new Error(
          `names ${String(parsed.receiptId)} at leaf ${String(parsed.leafIndex)}, not ${r.receiptId} at ${r.seq - 1}`,
        );
      if (!Array.isArray(parsed.hashes)) throw new Error('no hashes');
      if (!cp) return;
      const proof = parsed.hashes.map((h) => Buffer.from(String(h), 'base64'));
      verifyInclusion(r.seq - 1, cp.treeSize, r.leafHash, proof, cp.rootHash);
    } catch (error) {
      tally.fail('log.inclusion', `line ${n} (${r.receiptId}): ${(error as Error).message}`);
    }
  };
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    hash.update(b);
    bytes += b.length;
    const lines = (pending + b.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    lines.forEach(check);
  }
  if (pending !== '') check(pending);
  if (n !== receipts.length) tally.fail('log.inclusion', `${n} proofs for ${receipts.length} receipts`);
  tally.report(
    list,
    'log.inclusion',
    `every receipt's recomputed hash is a leaf of the signed checkpoint (${n} proofs)`,
  );
  return { sha256: hash.digest('hex'), bytes };
}

/** Without filters a pack holds every receipt of its seq window: a leaf without its receipt is a deleted row. */
function checkCoverage(list: CheckList, manifest: ExportManifest, receipts: readonly LoggedLine[]): void {
  if (Object.keys(manifest.filters).length > 0) {
    list.pass('log.coverage', 'filtered pack: leaves of other receipts are expected between these');
    return;
  }
  // A repeated or out-of-order seq is receipts.unique's finding; a jump is a missing receipt.
  const gap = receipts.findIndex((r, i) => i > 0 && r.seq > receipts[i - 1]!.seq + 1);
  list.add(
    'log.coverage',
    gap < 0,
    gap < 0
      ? `a receipt for every leaf from seq ${String(receipts[0]?.seq ?? '–')} to ${String(receipts.at(-1)?.seq ?? '–')}`
      : `leaves ${receipts[gap - 1]!.seq}…${receipts[gap]!.seq - 2} are in the log but their receipts are not in the pack`,
  );
}

async function checkConsistency(
  list: CheckList,
  bytes: Buffer,
  cp: OpenedCheckpoint | undefined,
  trust: LogTrust,
): Promise<void> {
  let proof: ConsistencyProof;
  try {
    proof = JSON.parse(bytes.toString('utf8')) as typeof proof;
    if (!cp || proof.to !== cp.treeSize)
      throw new Error(`proves up to ${String(proof.to)}, not the checkpoint's size`);
  } catch (error) {
    list.fail('log.consistency', `log/consistency.json: ${(error as Error).message}`);
    return;
  }
  if (trust.since === undefined) {
    list.pass(
      'log.consistency',
      `no saved checkpoint given (--since); the pack proves ${proof.from} → ${proof.to}`,
    );
    return;
  }
  try {
    const saved = openCheckpoint(trust.since, trust.logKeys);
    if (saved.origin !== cp.origin)
      throw new Error(`the saved checkpoint is of ${saved.origin}, the pack's of ${cp.origin}`);
    if (saved.treeSize > cp.treeSize)
      throw new Error(
        `the pack's checkpoint (${cp.treeSize} leaves) is older than the saved one (${saved.treeSize}): history shrank`,
      );
    if (proof.from !== saved.treeSize && saved.treeSize < cp.treeSize) {
      if (trust.fetchConsistency === undefined) {
        list.fail(
          'log.consistency',
          `UNPROVEN, not inconsistent: the pack proves ${proof.from} → ${proof.to}, not from your saved checkpoint (${saved.treeSize}). ` +
            `Export the pack with logSince=${saved.treeSize}, or pass --url <service origin> (API key in PRESENCE_API_KEY) to fetch the proof ${saved.treeSize} → ${cp.treeSize}`,
        );
        return;
      }
      try {
        proof = await trust.fetchConsistency(saved.treeSize, cp.treeSize);
      } catch (error) {
        list.fail(
          'log.consistency',
          `UNPROVEN: the consistency proof could not be fetched: ${(error as Error).message}`,
        );
        return;
      }
    }
    const hashes = proof.hashes.map((h) => Buffer.from(h, 'base64'));
    verifyConsistency(saved.treeSize, cp.treeSize, hashes, saved.rootHash, cp.rootHash);
    list.pass(
      'log.consistency',
      `the pack's checkpoint extends the saved one (${saved.treeSize} → ${cp.treeSize})`,
    );
  } catch (error) {
    list.fail('log.consistency', `INCONSISTENT with the saved checkpoint: ${(error as Error).message}`);
  }
}
