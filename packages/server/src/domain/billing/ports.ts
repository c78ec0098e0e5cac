import type { OutboxEventRecord } from '../events/ports.js';
/**
 * What billing needs from storage (the `billing` member of StoreTx). All times are epoch
 * milliseconds; periods are identified by their start (see billing-period.ts).
 */
import type { Granularity, InvoiceLine, Plan } from '@presence/contract';
import { DomainError } from '../errors.js';
import { periodContaining } from './billing-period.js';

export interface UsageBucket {
  start: number;
  meter: string;
  quantity: number;
}

/** Per-tenant, per-meter counters by hour, day and month, kept in the usage event's transaction. */
export interface UsageRollupRepo {
  /** The buckets of one granularity whose start is in [from, to), by start. */
  list(tenantId: string, granularity: Granularity, from: number, to: number): Promise<UsageBucket[]>;
  /**
   * Seals the month's counters of `meters` (creating zero rows where there was no usage) and
   * returns their final quantities. Waits for transactions that already counted usage there;
   * after it commits, counting usage in that month throws BillingPeriodClosed.
   */
  sealMonth(tenantId: string, monthStart: number, meters: readonly string[]): Promise<Record<string, number>>;
}

export interface QuotaCounter {
  used: number;
  threshold80At: number | null;
  threshold100At: number | null;
}

export type QuotaThreshold = 80 | 100;

export interface QuotaRepo {
  get(tenantId: string, periodStart: number): Promise<QuotaCounter | undefined>;
  /**
   * Marks the threshold as announced for the period and writes its outbox event, atomically (one
   * statement on PostgreSQL); false, and no event, when it already was.
   */
  announceThreshold(
    tenantId: string,
    periodStart: number,
    threshold: QuotaThreshold,
    event: OutboxEventRecord,
  ): Promise<boolean>;
}

export interface PlanAssignmentRecord {
  tenantId: string;
  /** Start of the first period the plan applies to. */
  effectiveFrom: number;
  plan: Plan;
  createdAt: number;
}

export interface PlanRepo {
  /** Adds or replaces the assignment starting at `effectiveFrom`. */
  put(assignment: PlanAssignmentRecord): Promise<void>;
  /** The assignment in force for the period starting at `periodStart` (latest effectiveFrom ≤ it). */
  inForce(tenantId: string, periodStart: number): Promise<PlanAssignmentRecord | undefined>;
}

export type FinalInvoiceStatus = 'open' | 'paid' | 'void';

export interface InvoiceRecord {
  id: string;
  tenantId: string;
  /** Gap-free per tenant: 1, 2, 3… */
  sequence: number;
  number: string;
  status: FinalInvoiceStatus;
  periodStart: number;
  periodEnd: number;
  currency: string;
  currencyExponent: number;
  /** The plan applied, as it was at finalization. */
  plan: Plan;
  lines: InvoiceLine[];
  subtotalMinor: number;
  totalMinor: number;
  finalizedAt: number;
  paidAt: number | null;
  voidedAt: number | null;
  note: string | null;
}

export interface InvoiceRepo {
  /** Throws UniqueViolation (invoices_tenant_id_period_start_key) when the period already has one. */
  insert(invoice: InvoiceRecord): Promise<void>;
  /** Any tenant's invoice: for the operator. */
  get(id: string): Promise<InvoiceRecord | undefined>;
  getForTenant(tenantId: string, id: string): Promise<InvoiceRecord | undefined>;
  getByPeriod(tenantId: string, periodStart: number): Promise<InvoiceRecord | undefined>;
  /** Newest period first; only periods before `before` when given. */
  list(
    tenantId: string,
    filter: { before?: number | undefined; status?: FinalInvoiceStatus | undefined },
    limit: number,
  ): Promise<InvoiceRecord[]>;
  /** Start of the tenant's latest invoiced period. */
  latestPeriodStart(tenantId: string): Promise<number | undefined>;
  /** Takes the tenant's next invoice sequence number (a counter row, locked until commit). */
  takeSequence(tenantId: string): Promise<number>;
  /** open → paid or void; false when the invoice was not open. */
  settle(id: string, change: { status: 'paid' | 'void'; at: number; note: string | null }): Promise<boolean>;
  /** Tenants created before `periodEnd` without an invoice for the period starting at `periodStart`. */
  tenantsToClose(periodStart: number, periodEnd: number, limit: number): Promise<string[]>;
}

export interface BillingRepos {
  rollups: UsageRollupRepo;
  quotas: QuotaRepo;
  plans: PlanRepo;
  invoices: InvoiceRepo;
}

/** Usage was counted in a month whose invoice was finalized meanwhile: the transaction must retry. */
export class BillingPeriodClosed extends DomainError {
  constructor(occurredAt: number) {
    super(
      'conflict',
      `the billing period ${periodContaining(occurredAt).label} was closed while this request was in flight; retry it`,
    );
  }
}
