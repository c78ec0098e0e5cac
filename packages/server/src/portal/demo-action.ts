import { canonicalJson, computeActionHashSync as computeActionHash } from '@presence/sdk/node';

/**
 * The one action the demo page approves. The demo backend hashes it on the server: the browser
 * never chooses what it signs for, exactly as a real caller's backend would do.
 */
export const DEMO_ACTION = {
  type: 'payout',
  amount: '250.00',
  currency: 'EUR',
  iban: 'DE89370400440532013000',
  reference: 'Invoice 2026-118',
} as const;

/** RFC 8785 canonical bytes of the action, the exact input of the hash. */
export const DEMO_ACTION_CANONICAL = canonicalJson(DEMO_ACTION);

/** Lowercase hex SHA-256 of the canonical action. */
export const DEMO_ACTION_HASH_HEX = computeActionHash(DEMO_ACTION);

/** Subjects the demo may enroll and challenge: only its own, never another subject of the tenant. */
export const DEMO_SUBJECT_PATTERN = '^demo-[A-Za-z0-9_-]{8,64}$';
