import type { ChallengeView } from '@presence/contract';
import { toChallengeView } from '../presence/get-challenge.js';
import type { LoggedReceipt } from '../receipts/receipt-log-ports.js';
import { PackChunks, pagedFile, type ReceiptPagesFile } from './pack-pages.js';
import { noteReceipt, type PackState } from './pack-state.js';

/**
 * receipts.ndjson, in pages of `pageSize` by seq: one RFC 8785 line per receipt. Memory holds one
 * page; the abort signal stops the database work between pages.
 */
export const writeReceiptLines: ReceiptPagesFile = (deps, state, signal, pageSize) => {
  const tenantId = state.record.tenantId;
  const walk = { filter: state.filter, start: state.start, signal, pageSize, heapBudget: deps.heapBudget };
  return pagedFile(walk, async (filter, position) => {
    const page = await deps.store.receiptLog.list(tenantId, filter, position, pageSize);
    const out = new PackChunks();
    for (const entry of page) writeReceiptLine(out, state, entry);
    return { chunks: out.finish(), rows: page.length, lastSeq: page.at(-1)?.seq };
  });
};

/**
 * The stored canonical receipt text is embedded as is (never re-serialized), inside an object
 * whose keys are already in RFC 8785 order: challenge, receipt, receiptHashHex, seq, signature.
 * Written piece by piece (see PackChunks): about 2.5 KB a line that is never built as one string.
 */
function writeReceiptLine(out: PackChunks, state: PackState, entry: LoggedReceipt): void {
  const r = entry.receipt;
  noteReceipt(state, entry, policyIdOf(r.canonicalJson));
  out.write('{"challenge":');
  writeChallengeView(out, toChallengeView(entry.challenge, state.generatedAt));
  out.write(',"receipt":');
  out.write(r.canonicalJson);
  // RFC 8785 form of {alg, kid, signatureB64Url}: keys in order, strings as JSON.stringify writes them.
  out.write(
    `,"receiptHashHex":"${r.hashHex}","seq":${entry.seq},"signature":{"alg":"Ed25519","kid":${JSON.stringify(r.kid)},"signatureB64Url":${JSON.stringify(r.signatureB64Url)}}}\n`,
  );
}

/**
 * Every key of ChallengeView (the compiler checks the list is complete), in RFC 8785 order: the
 * default sort compares UTF-16 code units, as RFC 8785 does. Every value is a string, so its
 * canonical text is JSON.stringify's; the test holds this writer to `canonicalize` on generated
 * views. `canonicalize` itself sorts every view's keys anew: ≈ 3 KB of garbage a receipt.
 */
const CHALLENGE_VIEW_KEYS = Object.keys({
  actionHashHex: true,
  challengeId: true,
  createdAt: true,
  decision: true,
  expiresAt: true,
  purpose: true,
  reason: true,
  receiptId: true,
  status: true,
  subject: true,
  usedAt: true,
} satisfies Record<keyof ChallengeView, true>).sort() as (keyof ChallengeView)[];

/** The RFC 8785 text of a challenge view, written into the page. */
export function writeChallengeView(out: PackChunks, view: ChallengeView): void {
  let open = '{';
  for (const key of CHALLENGE_VIEW_KEYS) {
    const value = view[key];
    if (value === undefined) continue;
    out.write(`${open}"${key}":${JSON.stringify(value)}`);
    open = ',';
  }
  out.write(open === '{' ? '{}' : '}');
}

/** In canonical JSON a quote inside a string is escaped, so this key can only be the receipt's own. */
const POLICY_ID = /"policyId":"([^"\\]+)"/;

function policyIdOf(canonicalReceipt: string): string {
  const id = POLICY_ID.exec(canonicalReceipt)?.[1];
  if (id === undefined) throw new Error('a stored receipt has no policyId');
  return id;
}
