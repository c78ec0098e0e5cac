/**
 * The billing suites' independent model: random plans, and pricing with reduced fractions
 * (numerator/denominator bigints), written apart from domain/billing/price-usage.ts.
 */
import { METERS, type Meter, type Plan } from '@presence/contract';
import fc from 'fast-check';

const randomDecimal = fc
  .tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 12 }), fc.nat())
  .map(([whole, digits, seed]) => {
    if (digits === 0) return String(whole);
    const fraction = String(seed).padStart(digits, '7').slice(0, digits);
    return `${whole}.${fraction}`;
  });
/** Random decimals, and exact halves and thirds, where rounding rules differ. */
const decimalArbitrary = fc.oneof(
  fc.constantFrom('0.5', '1.5', '0.25', '0.125', '2.5', '0.2', '0.333333333333', '0'),
  randomDecimal,
);

const meterPriceArbitrary = fc.record({
  included: fc.integer({ min: 0, max: 4 }),
  tiers: fc
    .array(fc.tuple(fc.integer({ min: 1, max: 4 }), decimalArbitrary), { minLength: 1, maxLength: 3 })
    .map((steps) => {
      let upTo = 0;
      return steps.map(([step, unitPriceMinor], i) => {
        upTo += step;
        return { upTo: i === steps.length - 1 ? null : upTo, unitPriceMinor };
      });
    }),
});

export const planArbitrary: fc.Arbitrary<Plan> = fc.record({
  name: fc.constant('random'),
  currency: fc.constantFrom('EUR', 'JPY', 'BHD', 'USD'),
  currencyExponent: fc.integer({ min: 0, max: 3 }),
  monthlyChallengeQuota: fc.constant(null),
  meters: fc.record(
    Object.fromEntries(METERS.map((m) => [m, meterPriceArbitrary])) as Record<
      Meter,
      typeof meterPriceArbitrary
    >,
    { requiredKeys: [] },
  ),
});

interface Fraction {
  n: bigint;
  d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
const reduce = ({ n, d }: Fraction): Fraction => {
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};
const add = (a: Fraction, b: Fraction) => reduce({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const fraction = (decimal: string): Fraction => {
  const [whole, frac = ''] = decimal.split('.');
  return reduce({ n: BigInt(whole! + frac), d: 10n ** BigInt(frac.length) });
};
/** Half-up: ⌊x + 1/2⌋ = ⌊(2n + d) / 2d⌋ for non-negative x. */
const roundHalfUp = ({ n, d }: Fraction) => (2n * n + d) / (2n * d);

/** Quantities per meter, each line's amount in minor units, and the total. */
export function priceIndependently(plan: Plan, performed: { meter: Meter; quantity: number }[]) {
  const quantities = Object.fromEntries(METERS.map((m) => [m, 0])) as Record<Meter, number>;
  for (const p of performed) quantities[p.meter] += p.quantity;
  const amounts = {} as Record<Meter, number>;
  for (const meter of METERS) {
    const price = plan.meters[meter];
    let exact: Fraction = { n: 0n, d: 1n };
    // Unit by unit: the k-th unit beyond the included ones costs the price of the tier holding k.
    for (let unit = 1; price && unit <= quantities[meter] - (price.included ?? 0); unit++) {
      const tier = price.tiers.find((t) => t.upTo === null || unit <= t.upTo)!;
      exact = add(exact, fraction(tier.unitPriceMinor));
    }
    amounts[meter] = Number(roundHalfUp(exact));
  }
  return { quantities, amounts, total: METERS.reduce((sum, m) => sum + amounts[m], 0) };
}
