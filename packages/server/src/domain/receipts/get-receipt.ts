import type { Receipt, SignedReceipt } from '@presence/contract';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import type { ReceiptRecord } from './ports.js';
import { locateReceipt } from '../receipt-log/locate-receipt.js';

export async function getReceipt(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  receiptId: string,
): Promise<SignedReceipt> {
  const r = await deps.store.receipts.get(tenantId, receiptId);
  if (!r) throw notFound('the receipt');
  const log = r.seq === undefined ? undefined : await locateReceipt(deps, tenantId, r.seq);
  return log ? { ...toSignedReceipt(r), log } : toSignedReceipt(r);
}

export async function getChallengeReceipt(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  challengeId: string,
): Promise<SignedReceipt> {
  const r = await deps.store.receipts.getByChallenge(tenantId, challengeId);
  if (!r) throw notFound('a receipt for this challenge');
  return toSignedReceipt(r);
}

export function toSignedReceipt(r: ReceiptRecord): SignedReceipt {
  return {
    receipt: JSON.parse(r.canonicalJson) as Receipt,
    receiptHashHex: r.hashHex,
    signature: { alg: 'Ed25519', kid: r.kid, signatureB64Url: r.signatureB64Url },
  };
}
