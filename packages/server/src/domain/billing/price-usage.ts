import {
  METERS,
  type InvoiceLine,
  type Meter,
  type MeterPrice,
  type MeterTotals,
  type Plan,
} from '@presence/contract';
import { formatDecimal, multiply, parseDecimal, roundHalfUp, type Scaled } from './decimal.js';

export interface PricedUsage {
  lines: InvoiceLine[];
  subtotalMinor: number;
  totalMinor: number;
}

/**
 * Prices one period's usage with a plan: one line per meter (every meter, so each counted unit
 * is visible). Each line sums its tiers exactly, then rounds once, half-up to a whole minor unit;
 * the subtotal is the sum of the rounded lines. No taxes or discounts: total = subtotal.
 */
export function priceUsage(plan: Plan, quantities: MeterTotals): PricedUsage {
  const lines = METERS.map((meter) => priceLine(meter, quantities[meter], plan.meters[meter]));
  const subtotal = lines.reduce((sum, line) => sum + BigInt(line.amountMinor), 0n);
  const subtotalMinor = toSafeNumber(subtotal, 'subtotal');
  return { lines, subtotalMinor, totalMinor: subtotalMinor };
}

function priceLine(meter: Meter, quantity: number, price: MeterPrice | undefined): InvoiceLine {
  if (price === undefined) {
    return {
      meter,
      quantity,
      includedQuantity: 0,
      unitPriceMinor: null,
      tiers: [],
      amountMinorExact: '0',
      amountMinor: 0,
    };
  }
  const included = price.included ?? 0;
  const includedQuantity = Math.min(quantity, included);
  const tiers = [
    ...(included > 0 ? [tier(true, 1, included, includedQuantity, '0')] : []),
    ...paidTiers(price, included, quantity - includedQuantity),
  ];
  const exact = tiers.reduce<Scaled>((sum, t) => sum + parseDecimal(t.amountMinorExact), 0n);
  return {
    meter,
    quantity,
    includedQuantity,
    unitPriceMinor: price.tiers.length === 1 ? price.tiers[0]!.unitPriceMinor : null,
    tiers,
    amountMinorExact: formatDecimal(exact),
    amountMinor: toSafeNumber(roundHalfUp(exact), `the ${meter} line`),
  };
}

/** Graduated: `upTo` counts billable units (those beyond the included ones), cumulatively. */
function paidTiers(price: MeterPrice, included: number, billable: number): InvoiceLine['tiers'] {
  let lower = 0;
  return price.tiers.map((t) => {
    const upper = t.upTo ?? Number.POSITIVE_INFINITY;
    const quantity = Math.max(0, Math.min(billable, upper) - lower);
    const result = tier(
      false,
      included + lower + 1,
      t.upTo === null ? null : included + t.upTo,
      quantity,
      t.unitPriceMinor,
    );
    lower = t.upTo ?? lower;
    return result;
  });
}

function tier(
  included: boolean,
  fromUnit: number,
  toUnit: number | null,
  quantity: number,
  unitPriceMinor: string,
) {
  const amount = multiply(quantity, parseDecimal(unitPriceMinor));
  return { included, fromUnit, toUnit, quantity, unitPriceMinor, amountMinorExact: formatDecimal(amount) };
}

function toSafeNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`${what} exceeds the largest representable amount`);
  return Number(value);
}
