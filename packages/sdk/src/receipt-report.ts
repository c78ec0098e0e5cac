/** What a receipt verifier returns, whatever the receipt's version: one verdict per check. */
import type { ReceiptCheckName } from '#contract';

export interface ReceiptCheck {
  ok: boolean;
  detail: string;
}

export interface ReceiptReport {
  valid: boolean;
  receiptId: string | null;
  receiptHashHex: string | null;
  checks: Partial<Record<ReceiptCheckName, ReceiptCheck>>;
}

export interface SignedReceiptInput {
  receipt: unknown;
  receiptHashHex?: string | undefined;
  signature?: { alg?: unknown; kid?: unknown; signatureB64Url?: unknown } | undefined;
}

export function pass(detail: string): ReceiptCheck {
  return { ok: true, detail };
}

export function fail(detail: string): ReceiptCheck {
  return { ok: false, detail };
}

export function report(
  checks: ReceiptReport['checks'],
  receiptId: string | null,
  receiptHashHex: string | null,
): ReceiptReport {
  return { valid: Object.values(checks).every((c) => c.ok), receiptId, receiptHashHex, checks };
}
