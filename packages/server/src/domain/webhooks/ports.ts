/**
 * What webhook delivery needs from storage (the `webhooks` member of StoreTx) and from the
 * network (WebhookTransport, implemented in worker/). Times are epoch milliseconds.
 */
import type { OutboxEventRecord } from '../events/ports.js';
import type { PageRequest } from '../ports.js';

export interface WebhookEndpointRecord {
  id: string;
  tenantId: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: number | null;
  /** The current `whsec_…` secret, sealed with deps.secrets (context: the endpoint id). */
  secretSealed: string;
  secretCreatedAt: number;
  /** The secret before the last rotation: still signs until `previousSecretExpiresAt`. */
  previousSecretSealed: string | null;
  previousSecretExpiresAt: number | null;
  /** Start of the current run of failed attempts; null after any success. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export type EndpointChange = Partial<
  Pick<
    WebhookEndpointRecord,
    | 'url'
    | 'description'
    | 'events'
    | 'enabled'
    | 'disabledReason'
    | 'disabledAt'
    | 'secretSealed'
    | 'secretCreatedAt'
    | 'previousSecretSealed'
    | 'previousSecretExpiresAt'
    | 'failingSince'
  >
> & { updatedAt: number };

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  id: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  /** Attempts ever started (numbers the attempt log). */
  attemptCount: number;
  /** Failed attempts since it was last (re)queued: the position in the retry schedule. */
  retryCount: number;
  /** Due time; while leased, the lease's end. Null once it succeeded or failed. */
  nextAttemptAt: number | null;
  leaseToken: string | null;
  leasedAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  firstSucceededAt: number | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

export interface WebhookAttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseSnippet: string | null;
}

/** A leased delivery with what the attempt needs: the endpoint and the event. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRecord;
  endpoint: WebhookEndpointRecord;
  event: {
    id: string;
    type: string;
    createdAt: number;
    payloadJson: string;
    /** W3C traceparent of the request that recorded the event; null when tracing was off. */
    traceParent: string | null;
  };
}

/** The outcome of one attempt, written with the lease token that claimed it. */
export interface DeliveryCompletion {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  retryCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  firstSucceededAt: number | null;
  completedAt: number | null;
  updatedAt: number;
}

export interface WebhookEndpointRepo {
  insert(e: WebhookEndpointRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  list(tenantId: string, page: PageRequest): Promise<WebhookEndpointRecord[]>;
  /**
   * Applies `change`; with `expectedSecretSealed`, only while the endpoint still has that secret
   * (a compare-and-set: undefined when another rotation replaced it first).
   */
  update(
    tenantId: string,
    id: string,
    change: EndpointChange,
    expectedSecretSealed?: string,
  ): Promise<WebhookEndpointRecord | undefined>;
  /** Deletes the endpoint with its deliveries and attempts; false when there was none. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** Enabled endpoints of these tenants (fan-out). */
  listEnabled(tenantIds: readonly string[]): Promise<WebhookEndpointRecord[]>;
}

export interface WebhookDeliveryRepo {
  /** Inserts, skipping any (endpoint, event) pair that already has a delivery. */
  insertMany(rows: readonly WebhookDeliveryRecord[]): Promise<void>;
  get(tenantId: string, id: string): Promise<WebhookDeliveryRecord | undefined>;
  /** Newest first; `page.afterId` is the last (oldest) id of the previous page. */
  listForEndpoint(
    tenantId: string,
    endpointId: string,
    filter: { status?: DeliveryStatus | undefined },
    page: PageRequest,
  ): Promise<WebhookDeliveryRecord[]>;
  attemptsOf(deliveryIds: readonly string[]): Promise<WebhookAttemptRecord[]>;
  insertAttempt(a: WebhookAttemptRecord): Promise<void>;
  /**
   * Serializes claim transactions across processes (PostgreSQL: a transaction-scoped advisory
   * lock; SQLite's BEGIN IMMEDIATE already does), so in-flight counts per endpoint are exact.
   */
  lockClaims(): Promise<void>;
  /** Whether any delivery is due at `now` (a cheap read before taking a write lock). */
  hasDue(now: number): Promise<boolean>;
  /** Leased, unexpired deliveries per endpoint: the attempts in flight, across all processes. */
  inFlightByEndpoint(now: number): Promise<Map<string, number>>;
  /**
   * Due deliveries of enabled endpoints, oldest first, skipping `excludeEndpoints`. On PostgreSQL
   * the rows are locked FOR UPDATE SKIP LOCKED until the transaction ends.
   */
  lockDue(now: number, excludeEndpoints: readonly string[], limit: number): Promise<WebhookDeliveryRecord[]>;
  /** Leases the rows: a new token, attempt_count + 1, due again at `until` unless completed first. */
  lease(ids: readonly string[], token: string, now: number, until: number): Promise<void>;
  loadClaimed(ids: readonly string[]): Promise<ClaimedDelivery[]>;
  /** Writes an attempt's outcome only while `token` still holds the lease; false otherwise. */
  complete(id: string, token: string, c: DeliveryCompletion): Promise<boolean>;
  /** Pending, unleased deliveries of the endpoint become failed with `reason`. */
  failPending(endpointId: string, reason: string, now: number): Promise<void>;
  /** Makes one delivery due now with a fresh retry schedule; undefined when it is leased. */
  requeue(tenantId: string, id: string, now: number): Promise<WebhookDeliveryRecord | undefined>;
  /** Re-queues the endpoint's failed deliveries created at or after `since`; returns how many. */
  requeueFailed(tenantId: string, endpointId: string, since: number, now: number): Promise<number>;
}

/** The fan-out's view of outbox_events. */
export interface WebhookFanOutRepo {
  hasPending(): Promise<boolean>;
  /** Oldest events not yet fanned out; PostgreSQL locks them FOR UPDATE SKIP LOCKED. */
  lockPending(limit: number): Promise<OutboxEventRecord[]>;
  markFannedOut(ids: readonly string[], at: number): Promise<void>;
}

/** Queue lengths for the metrics; counts stop at the cap they were read with. */
export interface WebhookBacklog {
  /** Outbox events not yet fanned out to deliveries. */
  outboxPending: number;
  /** Deliveries waiting for a (next) attempt. */
  deliveriesPending: number;
  /** Creation time of the oldest event or delivery not yet delivered; null when none. */
  oldestPendingAt: number | null;
}

export interface WebhookBacklogRepo {
  measure(cap: number): Promise<WebhookBacklog>;
}

export interface WebhookRepos {
  endpoints: WebhookEndpointRepo;
  deliveries: WebhookDeliveryRepo;
  fanOut: WebhookFanOutRepo;
  backlog: WebhookBacklogRepo;
}

/** A URL whose host resolved to addresses that the policy allows; attempts connect to `address`. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export interface AttemptResponse {
  /** Null when no HTTP response arrived (refused target, DNS, connect, timeout, reset). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Up to 4 KiB of the response body, as text. */
  responseSnippet: string | null;
  /** From a Retry-After header, in milliseconds from now. */
  retryAfterMs: number | null;
}

export interface WebhookTransport {
  /** Resolves the host and checks every address; throws TargetRefused when one is not allowed. */
  resolve(url: URL): Promise<CheckedTarget>;
  /** POSTs once: resolves and checks again, connects to the checked address, never follows redirects. */
  post(url: URL, headers: Record<string, string>, body: string): Promise<AttemptResponse>;
  /** Releases pooled connections (at shutdown). */
  close(): Promise<void>;
}

/** The URL may not be used as a webhook target; `reason` is safe to show to the tenant. */
export class TargetRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetRefused';
  }
}
