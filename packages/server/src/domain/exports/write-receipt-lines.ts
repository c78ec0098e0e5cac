import { canonicalJson } from '../encoding.js';
import type { Deps } from '../deps.js';
import { toChallengeView } from '../presence/get-challenge.js';
import type { LoggedReceipt } from '../receipts/receipt-log-ports.js';
import { encodeLines, pagedFile } from './pack-pages.js';
import { noteReceipt, type PackState } from './pack-state.js';

/**
 * receipts.ndjson, in pages of `pageSize` by seq: one RFC 8785 line per receipt. Memory holds one
 * page; the abort signal stops the database work between pages.
 */
export function writeReceiptLines(
  deps: Pick<Deps, 'store'>,
  state: PackState,
  signal: AbortSignal,
  pageSize: number,
): AsyncGenerator<Buffer> {
  const tenantId = state.record.tenantId;
  return pagedFile(state.filter, state.start, signal, pageSize, async (filter, position) => {
    const page = await deps.store.receiptLog.list(tenantId, filter, position, pageSize);
    return {
      chunks: encodeLines(page.map((entry) => receiptLine(state, entry))),
      rows: page.length,
      lastSeq: page.at(-1)?.seq,
    };
  });
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
