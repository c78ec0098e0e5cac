import { Type, type Static } from '@sinclair/typebox';
import { Cursor, IsoTime, Limit, prefixedId } from './common.js';

/** Every billable meter. Usage reports and invoices always carry all of them (0 when none). */
export const METERS = [
  'challenges.created',
  'presence.verified',
  'presence.denied',
  'receipts.exported',
  'webhooks.delivered',
] as const;
export type Meter = (typeof METERS)[number];

export const GRANULARITIES = ['hour', 'day', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const Count = Type.Integer({ minimum: 0 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** One non-negative integer per meter, every meter present. */
export const MeterTotals = Type.Object(
  Object.fromEntries(METERS.map((m) => [m, Count])) as Record<Meter, typeof Count>,
  { additionalProperties: false },
);
export type MeterTotals = Static<typeof MeterTotals>;

export const UsageQuery = Type.Object(
  {
    from: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'inclusive start (UTC), aligned to the granularity; with `to` omitted too, the current billing period',
      }),
    ),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'exclusive end (UTC), aligned to the granularity; give both `from` and `to`, or neither',
      }),
    ),
    granularity: Type.Optional(
      Type.Union(
        GRANULARITIES.map((g) => Type.Literal(g)),
        {
          default: 'day',
          description: 'bucket size; ranges up to 31 days (hour), 366 days (day), 120 months (month)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageReport = Type.Object(
  {
    from: IsoTime,
    to: IsoTime,
    granularity: Type.Union(GRANULARITIES.map((g) => Type.Literal(g))),
    totals: MeterTotals,
    series: Type.Array(Type.Object({ start: IsoTime, totals: MeterTotals })),
  },
  { $id: 'UsageReport' },
);
export type UsageReport = Static<typeof UsageReport>;

/** A calendar month in UTC, `YYYY-MM`: the billing period [first instant, first instant of the next month). */
const periodOf = (description: string) => Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description });
export const Period = periodOf('YYYY-MM (UTC)');

/** Exact decimal, no exponent: unit prices in minor units may be fractional (0.2 = a fifth of a cent). */
export const DecimalString = Type.String({
  pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,12})?$',
  description: 'exact decimal number, up to 12 fraction digits',
});

export const PriceTier = Type.Object(
  {
    upTo: Nullable(
      Type.Integer({ minimum: 1, maximum: 1e15, description: 'last billable unit of the tier' }),
    ),
    unitPriceMinor: DecimalString,
  },
  { additionalProperties: false },
);

/**
 * Graduated pricing of one meter: the first `included` units are free; the units beyond them
 * go through the tiers in order (`upTo` counts those billable units; the last tier has `upTo: null`).
 */
export const MeterPrice = Type.Object(
  {
    included: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e15, default: 0 })),
    tiers: Type.Array(PriceTier, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
export type MeterPrice = Static<typeof MeterPrice>;

export const Plan = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' }),
    currencyExponent: Type.Integer({ minimum: 0, maximum: 4, description: 'minor units per major: 10^n' }),
    monthlyChallengeQuota: Nullable(
      Type.Integer({ minimum: 0, maximum: 1e12, description: 'challenges per month; null = no quota' }),
    ),
    meters: Type.Partial(
      Type.Object(Object.fromEntries(METERS.map((m) => [m, MeterPrice])) as Record<Meter, typeof MeterPrice>),
      { additionalProperties: false, description: 'an absent meter is counted but not charged' },
    ),
  },
  { $id: 'Plan', additionalProperties: false },
);
export type Plan = Static<typeof Plan>;

export const InvoiceTier = Type.Object(
  {
    /** The plan's included (free) units, ahead of the priced tiers. */
    included: Type.Boolean(),
    fromUnit: Type.Integer({ minimum: 1 }),
    toUnit: Nullable(Type.Integer({ minimum: 1 })),
    quantity: Count,
    unitPriceMinor: DecimalString,
    /** quantity × unit price, exact (not rounded). */
    amountMinorExact: DecimalString,
  },
  { $id: 'InvoiceTier' },
);

export const InvoiceLine = Type.Object(
  {
    meter: Type.Union(METERS.map((m) => Type.Literal(m))),
    quantity: Count,
    includedQuantity: Count,
    /** The price per billable unit when the meter has one tier; null when graduated (see tiers). */
    unitPriceMinor: Nullable(DecimalString),
    tiers: Type.Array(InvoiceTier),
    amountMinorExact: DecimalString,
    /** amountMinorExact rounded half-up to a whole minor unit: the billed amount of the line. */
    amountMinor: Count,
  },
  { $id: 'InvoiceLine' },
);
export type InvoiceLine = Static<typeof InvoiceLine>;

export const InvoiceId = Type.String({
  pattern: '^(inv_[0-9A-HJKMNP-TV-Z]{26}|draft_[0-9]{4}-(0[1-9]|1[0-2]))$',
  description: 'inv_… for a finalized invoice, draft_YYYY-MM for the live draft of an unclosed period',
});

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const Invoice = Type.Object(
  {
    invoiceId: InvoiceId,
    tenantId: prefixedId('ten'),
    number: Nullable(Type.String({ description: 'gap-free per tenant, assigned when finalized' })),
    status: Type.Union(INVOICE_STATUSES.map((s) => Type.Literal(s))),
    period: Period,
    periodStart: IsoTime,
    periodEnd: IsoTime,
    currency: Type.String(),
    currencyExponent: Type.Integer(),
    planName: Type.String(),
    lines: Type.Array(InvoiceLine),
    subtotalMinor: Count,
    totalMinor: Count,
    /** When it was finalized; null for a draft. */
    issuedAt: Nullable(IsoTime),
    paidAt: Nullable(IsoTime),
    voidedAt: Nullable(IsoTime),
    note: Nullable(Type.String()),
    /** When a draft was computed (now); equals issuedAt once finalized. */
    computedAt: IsoTime,
  },
  { $id: 'Invoice' },
);
export type Invoice = Static<typeof Invoice>;

export const InvoiceParams = Type.Object({ invoiceId: InvoiceId });
export const ListInvoicesQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
    status: Type.Optional(Type.Union(INVOICE_STATUSES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false },
);

// Operator (admin) API.
export const AdminInvoiceParams = Type.Object({ invoiceId: prefixedId('inv') });
export const SettleInvoiceBody = Type.Object(
  { note: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
  { $id: 'SettleInvoiceBody', additionalProperties: false },
);
export const TenantParams = Type.Object({ tenantId: prefixedId('ten') });
export const PlanAssignmentBody = Type.Object(
  {
    plan: Plan,
    effectiveFrom: Type.Optional(periodOf('first period (YYYY-MM) it applies to; default: the current one')),
  },
  { $id: 'PlanAssignmentBody', additionalProperties: false },
);
export const PlanAssignment = Type.Object(
  {
    tenantId: prefixedId('ten'),
    plan: Plan,
    /** The period from which it applies; null for the configured default plan. */
    effectiveFrom: Nullable(Period),
    source: Type.Union([Type.Literal('tenant'), Type.Literal('default')]),
  },
  { $id: 'PlanAssignment' },
);
export type PlanAssignment = Static<typeof PlanAssignment>;
export const ClosePeriodParams = Type.Object({ period: Period });
export const ClosePeriodBody = Type.Object(
  { tenantId: Type.Optional(prefixedId('ten')) },
  { $id: 'ClosePeriodBody', additionalProperties: false },
);
export const ClosePeriodResult = Type.Object(
  {
    period: Period,
    /** The invoices this call finalized (created: true) or found already final (created: false). */
    invoices: Type.Array(
      Type.Object({
        tenantId: prefixedId('ten'),
        invoiceId: prefixedId('inv'),
        number: Type.String(),
        period: Period,
        totalMinor: Count,
        currency: Type.String(),
        currencyExponent: Type.Integer(),
        created: Type.Boolean(),
      }),
    ),
  },
  { $id: 'ClosePeriodResult' },
);
export type ClosePeriodResult = Static<typeof ClosePeriodResult>;
