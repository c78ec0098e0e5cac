import type { ReceiptVerification } from '@presence/contract';
import { verifyReceipt, type SignedReceiptInput } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import type { ReceiptRecord } from './ports.js';
import { toSignedReceipt } from './get-receipt.js';

export type CheckReceiptInput = SignedReceiptInput | { receiptId: string; receiptHashHex: string };

/**
 * The full offline check of a receipt (the SDK's verifier, against every published service key),
 * plus one online fact: whether this service stored exactly this receipt for the tenant.
 */
export async function checkReceipt(
  deps: Pick<Deps, 'store' | 'signer'>,
  tenantId: string,
  input: CheckReceiptInput,
): Promise<ReceiptVerification> {
  let subject: SignedReceiptInput;
  let stored: ReceiptRecord | undefined;
  if ('receiptId' in input) {
    stored = await deps.store.receipts.get(tenantId, input.receiptId);
    if (!stored) return notStored(input.receiptId, input.receiptHashHex);
    subject = { ...toSignedReceipt(stored), receiptHashHex: input.receiptHashHex };
  } else {
    subject = input;
    const id = (input.receipt as { receiptId?: unknown } | null)?.receiptId;
    stored = typeof id === 'string' ? await deps.store.receipts.get(tenantId, id) : undefined;
  }
  // A key another process started using moments ago may be newer than this copy of the table.
  const kid = subject.signature?.kid;
  if (typeof kid === 'string') await deps.signer.knows(kid);
  const report = verifyReceipt(subject, { keys: deps.signer.publishedKeys() });
  const matches = stored !== undefined && report.receiptHashHex === stored.hashHex;
  const checks: ReceiptVerification['checks'] = { ...report.checks };
  checks.stored = matches
    ? { ok: true, detail: 'this service issued exactly this receipt to this tenant' }
    : {
        ok: false,
        detail: stored
          ? 'the stored receipt with this id has another hash'
          : 'this tenant has no receipt with this id',
      };
  return {
    valid: report.valid && matches,
    receiptId: report.receiptId,
    receiptHashHex: report.receiptHashHex,
    checks,
  };
}

function notStored(receiptId: string, receiptHashHex: string): ReceiptVerification {
  return {
    valid: false,
    receiptId,
    receiptHashHex,
    checks: { stored: { ok: false, detail: 'this tenant has no receipt with this id' } },
  };
}
