import { canonicalJson, computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import type { Random } from '../domain/ports.js';

/**
 * The payout the demo page approves. Each approval is a distinct payout: the demo backend adds
 * a fresh `payoutId` (as docs/integration.md requires of every caller) and hashes the result on
 * the server, so the browser never chooses what it signs for and no two approvals share a hash.
 */
export const DEMO_PAYOUT_TEMPLATE = {
  type: 'payout',
  amount: '250.00',
  currency: 'EUR',
  iban: 'DE89370400440532013000',
  reference: 'Invoice 2026-118',
} as const;

/** The purpose every demo challenge carries; the demo only verifies and shows its own. */
export const DEMO_PURPOSE = 'presence demo payout';

export interface DemoPayout {
  action: Readonly<Record<string, string>>;
  /** RFC 8785 canonical bytes of the action, the exact input of the hash. */
  canonicalJson: string;
  /** Lowercase hex SHA-256 of the canonical action. */
  actionHashHex: string;
}

/** A new payout: the template plus a server-made id. */
export function newDemoPayout(random: Random): DemoPayout {
  const action = { ...DEMO_PAYOUT_TEMPLATE, payoutId: `pay_${random.bytes(12).toString('hex')}` };
  return { action, canonicalJson: canonicalJson(action), actionHashHex: computeActionHash(action) };
}

/** Subjects the demo may enroll and challenge: only its own, never another subject of the tenant. */
export const DEMO_SUBJECT_PATTERN = '^demo-[A-Za-z0-9_-]{8,64}$';
