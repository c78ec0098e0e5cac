import type { MeterTotals, Plan } from '@presence/contract';
import { describe, expect, it } from 'vitest';
import { formatDecimal, parseDecimal, roundHalfUp, shiftLeft } from './decimal.js';
import { checkPlan, parsePlan } from './check-plan.js';
import { priceUsage } from './price-usage.js';
import { FREE_PLAN } from './billing-settings.js';

const usage = (o: Partial<MeterTotals>): MeterTotals => ({
  'challenges.created': 0,
  'presence.verified': 0,
  'presence.denied': 0,
  'receipts.exported': 0,
  'webhooks.delivered': 0,
  ...o,
});

const plan = (meters: Plan['meters']): Plan => ({
  name: 'p',
  currency: 'EUR',
  currencyExponent: 2,
  monthlyChallengeQuota: null,
  meters,
});

describe('exact decimals', () => {
  it('parses, formats and rounds half-up without floats', () => {
    expect(formatDecimal(parseDecimal('0.2'))).toBe('0.2');
    expect(formatDecimal(parseDecimal('12.500000000000'))).toBe('12.5');
    expect(formatDecimal(parseDecimal('0.000000000001') * 3n)).toBe('0.000000000003');
    expect(roundHalfUp(parseDecimal('2.5'))).toBe(3n);
    expect(roundHalfUp(parseDecimal('2.499999999999'))).toBe(2n);
    expect(roundHalfUp(parseDecimal('0.5'))).toBe(1n);
    expect(roundHalfUp(parseDecimal('0'))).toBe(0n);
    // 0.1 + 0.2 in floats is 0.30000000000000004; here it is exact.
    expect(formatDecimal(parseDecimal('0.1') + parseDecimal('0.2'))).toBe('0.3');
    expect(() => parseDecimal('1e3')).toThrow(RangeError);
  });

  it('shifts to major units as text', () => {
    expect(shiftLeft('1234', 2)).toBe('12.34');
    expect(shiftLeft('5', 2)).toBe('0.05');
    expect(shiftLeft('100', 2)).toBe('1.00');
    expect(shiftLeft('0.2', 2)).toBe('0.002');
    expect(shiftLeft('7', 0)).toBe('7');
    expect(shiftLeft('1234567', 3)).toBe('1234.567');
  });
});

describe('pricing a period', () => {
  it('bills units beyond the included ones through graduated tiers, rounding each line once', () => {
    const p = plan({
      'presence.verified': {
        included: 1000,
        tiers: [
          { upTo: 10_000, unitPriceMinor: '0.5' },
          { upTo: null, unitPriceMinor: '0.2' },
        ],
      },
      'webhooks.delivered': { tiers: [{ upTo: null, unitPriceMinor: '0.01' }] },
    });
    const priced = priceUsage(
      p,
      usage({ 'presence.verified': 12_345, 'webhooks.delivered': 250, 'presence.denied': 9 }),
    );
    const verified = priced.lines.find((l) => l.meter === 'presence.verified')!;
    expect(verified).toMatchObject({ quantity: 12_345, includedQuantity: 1000, unitPriceMinor: null });
    expect(verified.tiers).toEqual([
      {
        included: true,
        fromUnit: 1,
        toUnit: 1000,
        quantity: 1000,
        unitPriceMinor: '0',
        amountMinorExact: '0',
      },
      {
        included: false,
        fromUnit: 1001,
        toUnit: 11_000,
        quantity: 10_000,
        unitPriceMinor: '0.5',
        amountMinorExact: '5000',
      },
      {
        included: false,
        fromUnit: 11_001,
        toUnit: null,
        quantity: 1345,
        unitPriceMinor: '0.2',
        amountMinorExact: '269',
      },
    ]);
    expect(verified.amountMinor).toBe(5269);
    const webhooks = priced.lines.find((l) => l.meter === 'webhooks.delivered')!;
    expect(webhooks).toMatchObject({ unitPriceMinor: '0.01', amountMinorExact: '2.5', amountMinor: 3 });
    expect(priced.lines.find((l) => l.meter === 'presence.denied')).toMatchObject({
      quantity: 9,
      tiers: [],
      amountMinor: 0,
    });
    expect(priced.lines.map((l) => l.meter)).toEqual([
      'challenges.created',
      'presence.verified',
      'presence.denied',
      'receipts.exported',
      'webhooks.delivered',
    ]);
    expect(priced).toMatchObject({ subtotalMinor: 5272, totalMinor: 5272 });
  });

  it('rounds after summing the tiers, not per tier', () => {
    // Two tiers of 0.4 each: per-tier rounding would give 0 + 0; the line is 0.8 → 1.
    const p = plan({
      'receipts.exported': {
        tiers: [
          { upTo: 1, unitPriceMinor: '0.4' },
          { upTo: null, unitPriceMinor: '0.4' },
        ],
      },
    });
    expect(priceUsage(p, usage({ 'receipts.exported': 2 })).totalMinor).toBe(1);
  });

  it('charges nothing under the free default plan', () => {
    expect(
      priceUsage(FREE_PLAN, usage({ 'presence.verified': 1500, 'challenges.created': 1000 })).totalMinor,
    ).toBe(0);
  });

  it('refuses a tier ladder that is not increasing or not open-ended, naming the field', () => {
    const bad = plan({
      'presence.verified': {
        tiers: [
          { upTo: 10, unitPriceMinor: '1' },
          { upTo: 5, unitPriceMinor: '1' },
        ],
      },
    });
    expect(() => checkPlan(bad)).toThrowError(
      expect.objectContaining({
        fields: [
          { field: '/meters/presence.verified/tiers/1/upTo', message: 'the last tier must have upTo: null' },
          { field: '/meters/presence.verified/tiers/1/upTo', message: 'must be greater than 10' },
        ],
      }),
    );
    expect(() => parsePlan({ name: 'x' }, 'plan.json')).toThrow(/plan.json is not a valid plan/);
    expect(parsePlan(JSON.parse(JSON.stringify(FREE_PLAN)), 'free')).toEqual(FREE_PLAN);
  });
});
