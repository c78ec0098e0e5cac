/**
 * Property: for random sequences of billable operations driven through the real HTTP API and
 * domain (challenges, verifications and denials with a software authenticator, other meters
 * through recordUsage), on a manual clock that moves across hours, days and a month boundary,
 * GET /v1/billing/usage equals what was performed, by hour, day and month. Then the period is
 * closed and every invoice line and the total are recomputed here with independent exact
 * arithmetic (reduced fractions) from the plan and the performed operations.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { METERS, type Meter, type Plan } from '@presence/contract';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { closePeriod } from '../src/domain/billing/close-period-for-tenants.js';
import { recordUsage } from '../src/domain/usage/record-usage.js';
import { planArbitrary, priceIndependently } from './support/billing-model.js';
import { useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const HOUR = 3_600_000;
const START = Date.UTC(2031, 0, 30, 21, 0, 0); // crosses into February within the run

type Op =
  | { kind: 'create' }
  | { kind: 'verify'; pick: number; good: boolean }
  | { kind: 'replay'; pick: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'other'; meter: 'receipts.exported' | 'webhooks.delivered'; quantity: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'create' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('verify' as const), pick: fc.nat(), good: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 14 * HOUR }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('other' as const),
      meter: fc.constantFrom('receipts.exported' as const, 'webhooks.delivered' as const),
      quantity: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

interface Performed {
  meter: Meter;
  at: number;
  quantity: number;
}

describeEachDialect('usage and invoices follow the operations', (dialect) => {
  const s = useBillingService(dialect, { start: START });

  async function perform(ops: Op[], apiKey: string, tenantId: string): Promise<Performed[]> {
    const authenticator = await s.enroll(apiKey, 'user');
    const pending: { challengeId: string; challenge: string }[] = [];
    const used: string[] = [];
    const performed: Performed[] = [];
    const count = (meter: Meter, quantity = 1) => performed.push({ meter, at: s.clock.now(), quantity });
    for (const op of ops) {
      if (op.kind === 'advance') s.clock.advance(op.ms);
      if (op.kind === 'create') {
        const res = await s.request(
          'POST',
          '/v1/presence/challenge',
          { actionHashHex: computeActionHash({ n: performed.length }), subject: 'user' },
          apiKey,
        );
        expect(res.status).toBe(201);
        pending.push({ challengeId: res.json.challengeId, challenge: res.json.publicKey.challenge });
        count('challenges.created');
      }
      if (op.kind === 'verify' && pending.length > 0) {
        const [target] = pending.splice(op.pick % pending.length, 1);
        const assertion = authenticator.assert({
          challenge: target!.challenge,
          ...(op.good ? {} : { origin: 'https://evil.example' }),
        });
        const res = await s.request(
          'POST',
          '/v1/presence/verify',
          { challengeId: target!.challengeId, assertion },
          apiKey,
        );
        const verified = res.json.decision === 'PRESENCE_VERIFIED';
        // A good assertion is verified unless the clock moved past the challenge's expiry.
        const expected = op.good
          ? ['PRESENCE_VERIFIED', 'CHALLENGE_EXPIRED']
          : ['ORIGIN_NOT_ALLOWED', 'CHALLENGE_EXPIRED'];
        expect(expected).toContain(res.json.decision);
        count(verified ? 'presence.verified' : 'presence.denied');
        used.push(target!.challengeId);
      }
      if (op.kind === 'replay' && used.length > 0) {
        const challengeId = used[op.pick % used.length]!;
        const res = await s.request(
          'POST',
          '/v1/presence/verify',
          { challengeId, assertion: authenticator.assert({ challenge: 'AAAA' }) },
          apiKey,
        );
        expect(res.json.decision).toBe('CHALLENGE_ALREADY_USED');
      }
      if (op.kind === 'other') {
        await s.deps.store.transaction((tx) =>
          recordUsage(s.deps, tx, tenantId, op.meter, `src_${tenantId}_${performed.length}`, op.quantity),
        );
        count(op.meter, op.quantity);
      }
    }
    return performed;
  }

  async function expectUsage(apiKey: string, performed: Performed[], granularity: 'hour' | 'day' | 'month') {
    const floor = (ms: number) => {
      if (granularity === 'hour') return Math.floor(ms / HOUR) * HOUR;
      if (granularity === 'day') return Math.floor(ms / (24 * HOUR)) * 24 * HOUR;
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    };
    const from = floor(START);
    const to = granularity === 'month' ? Date.UTC(2031, 3, 1) : floor(s.clock.now()) + 24 * HOUR;
    const res = await s.request(
      'GET',
      `/v1/billing/usage?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&granularity=${granularity}`,
      undefined,
      apiKey,
    );
    expect(res.status).toBe(200);
    const expected = new Map<string, Record<string, number>>();
    const totals = Object.fromEntries(METERS.map((m) => [m, 0]));
    for (const p of performed) {
      const key = new Date(floor(p.at)).toISOString();
      const bucket = expected.get(key) ?? Object.fromEntries(METERS.map((m) => [m, 0]));
      bucket[p.meter]! += p.quantity;
      totals[p.meter]! += p.quantity;
      expected.set(key, bucket);
    }
    expect(res.json.totals).toEqual(totals);
    for (const point of res.json.series) {
      expect(point.totals, `${granularity} ${point.start}`).toEqual(
        expected.get(point.start) ?? Object.fromEntries(METERS.map((m) => [m, 0])),
      );
    }
    expect(res.json.series.filter((p: any) => expected.has(p.start))).toHaveLength(expected.size);
  }

  it('usage equals the operations performed; each invoice line is the plan applied to them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArbitrary, { minLength: 1, maxLength: 24 }),
        planArbitrary,
        async (ops, plan: Plan) => {
          s.clock.ms = START;
          const { tenantId, apiKey } = await s.newTenant(plan);
          const performed = await perform(ops, apiKey, tenantId);
          for (const granularity of ['hour', 'day', 'month'] as const)
            await expectUsage(apiKey, performed, granularity);

          const draft = await s.request('GET', '/v1/billing/invoices/draft_2031-01', undefined, apiKey);
          s.clock.ms = Date.UTC(2031, 2, 5);
          const closed = await closePeriod(s.deps, { period: '2031-02', tenantId });
          expect(closed.invoices.map((i) => [i.period, i.created])).toEqual([
            ['2031-01', true],
            ['2031-02', true],
          ]);
          for (const [index, period] of (['2031-01', '2031-02'] as const).entries()) {
            const invoice = (
              await s.request(
                'GET',
                `/v1/billing/invoices/${closed.invoices[index]!.invoiceId}`,
                undefined,
                apiKey,
              )
            ).json;
            const [year, month] = period.split('-').map(Number) as [number, number];
            const inPeriod = performed.filter(
              (p) => new Date(p.at).getUTCFullYear() === year && new Date(p.at).getUTCMonth() === month - 1,
            );
            const independent = priceIndependently(plan, inPeriod);
            expect(invoice.number).toBe(`INV-00000${index + 1}`);
            expect(invoice.lines.map((l: any) => [l.meter, l.quantity, l.amountMinor])).toEqual(
              METERS.map((m) => [m, independent.quantities[m], independent.amounts[m]]),
            );
            expect(invoice.totalMinor).toBe(independent.total);
            expect(invoice.subtotalMinor).toBe(
              invoice.lines.reduce((sum: number, l: any) => sum + l.amountMinor, 0),
            );
            if (index === 0) expect(draft.json.totalMinor).toBe(invoice.totalMinor);
          }
        },
      ),
      { numRuns: dialect === 'sqlite' ? 20 : 15, seed: 20310130, endOnFailure: true },
    );
  });
});
