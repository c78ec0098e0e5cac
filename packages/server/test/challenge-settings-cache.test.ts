/**
 * A new challenge reads its tenant's current policy and plan from memory for a few seconds
 * (policy/policy-cache.ts, billing/plan-cache.ts): a change made through this process applies to
 * the next challenge at once; one made elsewhere (another instance, the CLI: here, straight in the
 * database) is served from memory until the cache lifetime has passed, never longer.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import type { PolicyBody } from '@presence/contract';
import { expect, it } from 'vitest';
import { periodContaining } from '../src/domain/billing/billing-period.js';
import { PLAN_CACHE_TTL_MS } from '../src/domain/billing/plan-cache.js';
import { CURRENT_POLICY_TTL_MS } from '../src/domain/policy/policy-cache.js';
import { insertPolicyVersion } from '../src/domain/policy/put-policy.js';
import { ORIGIN, quotaPlan, RP_ID, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const START = Date.UTC(2031, 2, 10, 12, 0, 0);
const actionHashHex = computeActionHash({ type: 'role-change', role: 'admin' });

const policyWithTtl = (challengeTtlSeconds: number): PolicyBody => ({
  rpId: RP_ID,
  allowedOrigins: [ORIGIN],
  challengeTtlSeconds,
});

describeEachDialect('current policy and plan for new challenges', (dialect) => {
  const s = useBillingService(dialect, { start: START });

  const create = async (apiKey: string) =>
    s.request('POST', '/v1/presence/challenge', { actionHashHex }, apiKey);
  /** The challenge lifetime the tenant's current policy gave a new challenge, in seconds. */
  const ttlOfNewChallenge = async (apiKey: string) => {
    const created = await create(apiKey);
    expect(created.status).toBe(201);
    return created.json.publicKey.timeout / 1000;
  };

  it('applies a policy changed through this process to the next challenge at once', async () => {
    const { apiKey } = await s.newTenant();
    expect(await ttlOfNewChallenge(apiKey)).toBe(120);
    expect((await s.request('PUT', '/v1/policy', policyWithTtl(30), apiKey)).status).toBe(200);
    expect(await ttlOfNewChallenge(apiKey)).toBe(30);
  });

  it('applies a policy changed elsewhere once CURRENT_POLICY_TTL_MS has passed', async () => {
    const { tenantId, apiKey } = await s.newTenant();
    expect(await ttlOfNewChallenge(apiKey)).toBe(120);
    await s.deps.store.transaction((tx) => insertPolicyVersion(s.deps, tx, tenantId, policyWithTtl(45), 2));
    expect(await ttlOfNewChallenge(apiKey)).toBe(120);
    s.clock.advance(CURRENT_POLICY_TTL_MS - 1);
    expect(await ttlOfNewChallenge(apiKey)).toBe(120);
    s.clock.advance(1);
    expect(await ttlOfNewChallenge(apiKey)).toBe(45);
    // The policy API never serves the cached version.
    expect((await s.request('GET', '/v1/policy', undefined, apiKey)).json.rules.challengeTtlSeconds).toBe(45);
  });

  it('applies a plan set through this process to the next challenge at once', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(100));
    expect((await create(apiKey)).status).toBe(201);
    const set = await s.admin('PUT', `/admin/v1/tenants/${tenantId}/plan`, { plan: quotaPlan(1) });
    expect(set.status).toBe(200);
    const refused = await create(apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('quota_exceeded');
  });

  it('applies a plan set elsewhere once PLAN_CACHE_TTL_MS has passed', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(100));
    expect((await create(apiKey)).status).toBe(201);
    await s.deps.store.billing.plans.put({
      tenantId,
      effectiveFrom: periodContaining(s.clock.now()).start,
      plan: quotaPlan(2),
      createdAt: s.clock.now(),
    });
    // Served from memory: the quota of 100 still applies.
    expect((await create(apiKey)).status).toBe(201);
    expect((await create(apiKey)).status).toBe(201);
    s.clock.advance(PLAN_CACHE_TTL_MS);
    expect((await create(apiKey)).status).toBe(429);
    // The plan API never serves the cached assignment.
    const plan = await s.admin('GET', `/admin/v1/tenants/${tenantId}/plan`);
    expect(plan.json.plan.monthlyChallengeQuota).toBe(2);
  });
});
