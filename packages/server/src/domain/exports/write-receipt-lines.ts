import { canonicalJson } from '../encoding.js';
import type { Deps } from '../deps.js';
import { toChallengeView } from '../presence/get-challenge.js';
import type { LoggedReceipt } from '../receipts/receipt-log-ports.js';
import { noteReceipt, type PackState } from './pack-state.js';

/**
 * receipts.ndjson, streamed in keyset batches of `batchSize` by seq: one RFC 8785 line per
 * receipt. Memory holds one batch; the abort signal stops the database work between batches.
 */
export async function* writeReceiptLines(
  deps: Pick<Deps, 'store'>,
  state: PackState,
  signal: AbortSignal,
  batchSize: number,
): AsyncGenerator<Buffer> {
  const filter = state.filter;
  let position = state.start;
  while (filter && position) {
    signal.throwIfAborted();
    const batch = await deps.store.receiptLog.list(state.record.tenantId, filter, position, batchSize);
    signal.throwIfAborted();
    if (batch.length === 0) return;
    yield* encodeLines(batch.map((entry) => receiptLine(state, entry)));
    if (batch.length < batchSize) return;
    position = { ...position, after: batch.at(-1)!.seq };
  }
}

/** Bytes per chunk handed to the zip: small enough that each one dies young (see encodeLines). */
const CHUNK_BYTES = 64 * 1024;

/**
 * The lines as Buffers of about CHUNK_BYTES. Joining a batch into one string would make a
 * megabytes-long string that V8 keeps in large-object space until a full collection, and big
 * Buffers outlive young collections while the zip works through them; either way RSS climbs
 * with every batch. Small chunks are freed as fast as they are written.
 */
function* encodeLines(lines: string[]): Generator<Buffer> {
  let group: string[] = [];
  let size = 0;
  for (const line of lines) {
    const bytes = Buffer.byteLength(line);
    if (size + bytes > CHUNK_BYTES && group.length > 0) {
      yield encodeGroup(group, size);
      group = [];
      size = 0;
    }
    group.push(line);
    size += bytes;
  }
  if (group.length > 0) yield encodeGroup(group, size);
}

function encodeGroup(lines: string[], size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const line of lines) at += out.write(line, at);
  return out;
}

/**
 * The stored canonical receipt text is embedded as is (never re-serialized), inside an object
 * whose keys are already in RFC 8785 order: challenge, receipt, receiptHashHex, seq, signature.
 */
function receiptLine(state: PackState, entry: LoggedReceipt): string {
  const r = entry.receipt;
  noteReceipt(state, entry, policyIdOf(r.canonicalJson));
  const challenge = canonicalJson(toChallengeView(entry.challenge, state.generatedAt));
  // RFC 8785 form of {alg, kid, signatureB64Url}: keys in order, strings as JSON.stringify writes them.
  const signature = `{"alg":"Ed25519","kid":${JSON.stringify(r.kid)},"signatureB64Url":${JSON.stringify(r.signatureB64Url)}}`;
  return `{"challenge":${challenge},"receipt":${r.canonicalJson},"receiptHashHex":"${r.hashHex}","seq":${entry.seq},"signature":${signature}}\n`;
}

/** In canonical JSON a quote inside a string is escaped, so this key can only be the receipt's own. */
const POLICY_ID = /"policyId":"([^"\\]+)"/;

function policyIdOf(canonicalReceipt: string): string {
  const id = POLICY_ID.exec(canonicalReceipt)?.[1];
  if (id === undefined) throw new Error('a stored receipt has no policyId');
  return id;
}
