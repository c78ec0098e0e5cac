/** Signs vectors exactly as the service signs evidence: Ed25519 over the RFC 8785 bytes. */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@presence/sdk';
import type { ReceiptSigner } from '../../../src/domain/receipts/receipt-signer.js';

export interface SignatureRecord {
  alg: 'Ed25519';
  kid: string;
  signatureB64Url: string;
}

export interface SignedEvidence {
  receipt: unknown;
  receiptHashHex: string;
  signature: SignatureRecord;
}

export interface SignedApprovalSet {
  approvalSet: Record<string, unknown>;
  approvalSetHashHex: string;
  signature: SignatureRecord;
}

export interface VectorSigner {
  hash(value: unknown): string;
  /** Signs with the service key scheduled for the receipt's `issuedAt`. */
  signReceipt(receipt: Record<string, unknown>): SignedEvidence;
  /** Signs with the service key scheduled for the set's `decidedAt`. */
  signApprovalSet(set: Record<string, unknown>): SignedApprovalSet;
}

export function vectorSigner(signer: ReceiptSigner): VectorSigner {
  const hash = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');
  const sign = (value: unknown, at: string): SignatureRecord => {
    const key = signer.keyAt(Date.parse(at));
    return {
      alg: 'Ed25519',
      kid: key.kid,
      signatureB64Url: key.sign(Buffer.from(canonicalJson(value), 'utf8')),
    };
  };
  return {
    hash,
    signReceipt: (receipt) => ({
      receipt,
      receiptHashHex: hash(receipt),
      signature: sign(receipt, String(receipt.issuedAt)),
    }),
    signApprovalSet: (set) => ({
      approvalSet: set,
      approvalSetHashHex: hash(set),
      signature: sign(set, String(set.decidedAt)),
    }),
  };
}
