import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DEFAULT_BILLING_SETTINGS, type BillingSettings } from '../domain/billing/billing-settings.js';
import { parsePlan } from '../domain/billing/check-plan.js';

export interface BillingEnv {
  PRESENCE_BILLING_DEFAULT_PLAN_FILE?: string | undefined;
  PRESENCE_BILLING_CLOSE_GRACE_HOURS: number;
  PRESENCE_ADMIN_TOKEN?: string | undefined;
}

/**
 * Billing settings from the environment: the default plan (a JSON plan file, else the built-in
 * free plan), the grace window of the scheduled close, and the operator token (kept as SHA-256).
 * Any error stops start-up: a service must not bill with a plan it could not read.
 */
export function loadBillingSettings(env: BillingEnv, fail: (message: string) => Error): BillingSettings {
  const file = env.PRESENCE_BILLING_DEFAULT_PLAN_FILE;
  let defaultPlan = DEFAULT_BILLING_SETTINGS.defaultPlan;
  if (file !== undefined && file !== '') {
    try {
      defaultPlan = parsePlan(JSON.parse(readFileSync(file, 'utf8')), file);
    } catch (error) {
      throw fail(`PRESENCE_BILLING_DEFAULT_PLAN_FILE: ${(error as Error).message}`);
    }
  }
  const token = env.PRESENCE_ADMIN_TOKEN;
  return {
    defaultPlan,
    closeGraceMs: env.PRESENCE_BILLING_CLOSE_GRACE_HOURS * 3_600_000,
    operatorTokenSha256:
      token === undefined || token === '' ? undefined : createHash('sha256').update(token).digest(),
  };
}
