import type { Plan } from '@presence/contract';

/** Billing configuration (config/load-config.ts builds it from the environment). */
export interface BillingSettings {
  /** The plan of every tenant without an assignment of its own. */
  defaultPlan: Plan;
  /** How long after a period ends the scheduled close waits before finalizing its invoices. */
  closeGraceMs: number;
  /** SHA-256 of the operator token that /admin/v1 routes require; undefined turns them off. */
  operatorTokenSha256: Buffer | undefined;
}

/**
 * The built-in default: free, 100,000 challenges a month (so at most about 100,000 verifications,
 * all included); every meter counted, none charged.
 */
export const FREE_PLAN: Plan = {
  name: 'free',
  currency: 'EUR',
  currencyExponent: 2,
  monthlyChallengeQuota: 100_000,
  meters: {
    'presence.verified': { included: 100_000, tiers: [{ upTo: null, unitPriceMinor: '0' }] },
  },
};

export const DEFAULT_CLOSE_GRACE_MS = 48 * 3_600_000;

export const DEFAULT_BILLING_SETTINGS: BillingSettings = {
  defaultPlan: FREE_PLAN,
  closeGraceMs: DEFAULT_CLOSE_GRACE_MS,
  operatorTokenSha256: undefined,
};
