import { WEBHOOK_TEST_EVENT } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import type { StoreTx } from '../ports.js';
import { recordUsage } from '../usage/record-usage.js';
import { disableWebhookEndpoint } from './manage-webhook-endpoints.js';
import type { AttemptResponse, ClaimedDelivery, DeliveryCompletion, WebhookEndpointRecord } from './ports.js';
import { AUTO_DISABLE_AFTER_MS, classifyResponse, nextRetryDelay } from './retry-schedule.js';
import { webhookBody, webhookHeaders } from './sign-webhook.js';
import { signingSecrets } from './webhook-secret.js';

export interface AttemptOutcome {
  /** False when the lease was lost (another worker took over, or the endpoint was deleted). */
  recorded: boolean;
  status: DeliveryCompletion['status'];
  /** Set when this attempt disabled the endpoint (410, or failing for days). */
  disabledReason: string | null;
}

/** A finished attempt, waiting to be recorded. */
export interface FinishedAttempt {
  claimed: ClaimedDelivery;
  token: string;
  startedAt: number;
  response: AttemptResponse;
}

/** One attempt of a leased delivery: sign with the attempt's timestamp and POST. Never throws for the network. */
export async function sendAttempt(
  deps: Pick<Deps, 'clock' | 'secrets' | 'webhooks'>,
  claimed: ClaimedDelivery,
  token: string,
): Promise<FinishedAttempt> {
  const startedAt = deps.clock.now();
  const body = webhookBody(claimed.event);
  const headers = webhookHeaders({
    secrets: signingSecrets(deps, claimed.endpoint, startedAt),
    timestamp: Math.floor(startedAt / 1000),
    deliveryId: claimed.delivery.id,
    eventType: claimed.event.type,
    body,
  });
  const response = await deps.webhooks.post(new URL(claimed.endpoint.url), headers, body);
  return { claimed, token, startedAt, response };
}

/**
 * Records finished attempts in one transaction (a group commit: one durable write for many
 * attempts). Each writes its attempt row and its delivery's next state only while its lease is
 * still held; a success counts `webhooks.delivered` once per delivery (test events are free).
 */
export async function recordAttempts(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  finished: readonly FinishedAttempt[],
): Promise<AttemptOutcome[]> {
  return deps.store.transaction(async (tx) => {
    const outcomes: AttemptOutcome[] = [];
    for (const attempt of finished) outcomes.push(await recordAttempt(deps, tx, attempt));
    return outcomes;
  });
}

async function recordAttempt(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  { claimed, token, startedAt, response }: FinishedAttempt,
): Promise<AttemptOutcome> {
  const d = claimed.delivery;
  const lost: AttemptOutcome = { recorded: false, status: 'pending', disabledReason: null };
  const endpoint = await tx.webhooks.endpoints.get(d.tenantId, d.endpointId);
  if (!endpoint) return lost;
  const now = deps.clock.now();
  const completion = nextState(deps, claimed, endpoint, response, now);
  if (!(await tx.webhooks.deliveries.complete(d.id, token, completion))) return lost;
  await tx.webhooks.deliveries.insertAttempt({
    deliveryId: d.id,
    attempt: d.attemptCount,
    startedAt,
    durationMs: response.durationMs,
    statusCode: response.statusCode,
    error: completion.lastError,
    responseSnippet: response.responseSnippet,
  });
  if (completion.status !== 'succeeded') {
    const disabledReason = await noteFailure(tx, endpoint, response, startedAt, now);
    return { recorded: true, status: completion.status, disabledReason };
  }
  if (d.firstSucceededAt === null && d.eventType !== WEBHOOK_TEST_EVENT) {
    await recordUsage(deps, tx, d.tenantId, 'webhooks.delivered', d.id);
  }
  if (endpoint.failingSince !== null) {
    await tx.webhooks.endpoints.update(d.tenantId, d.endpointId, { failingSince: null, updatedAt: now });
  }
  return { recorded: true, status: completion.status, disabledReason: null };
}

function nextState(
  deps: Pick<Deps, 'random'>,
  { delivery: d }: ClaimedDelivery,
  endpoint: WebhookEndpointRecord,
  response: AttemptResponse,
  now: number,
): DeliveryCompletion {
  const kind = classifyResponse(response.statusCode);
  const base = { lastStatusCode: response.statusCode, firstSucceededAt: d.firstSucceededAt, updatedAt: now };
  if (kind === 'success') {
    return {
      ...base,
      status: 'succeeded',
      nextAttemptAt: null,
      retryCount: d.retryCount,
      lastError: null,
      firstSucceededAt: d.firstSucceededAt ?? now,
      completedAt: now,
    };
  }
  const error = attemptError(response);
  const delay =
    kind === 'retry' && endpoint.enabled
      ? nextRetryDelay(d.retryCount, deps.random, response.retryAfterMs)
      : null;
  if (delay === null) {
    return {
      ...base,
      status: 'failed',
      nextAttemptAt: null,
      retryCount: d.retryCount + 1,
      lastError: error,
      completedAt: now,
    };
  }
  return {
    ...base,
    status: 'pending',
    nextAttemptAt: now + delay,
    retryCount: d.retryCount + 1,
    lastError: error,
    completedAt: null,
  };
}

function attemptError(response: AttemptResponse): string {
  if (response.error !== null) return response.error;
  const code = response.statusCode ?? 0;
  if (code >= 300 && code < 400)
    return `redirect (HTTP ${code}) not followed: webhooks never follow redirects`;
  return `HTTP ${code}`;
}

/** Extends the failure streak; disables the endpoint on 410 or after days of nothing but failures. */
async function noteFailure(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  response: AttemptResponse,
  startedAt: number,
  now: number,
): Promise<string | null> {
  const failingSince = endpoint.failingSince ?? startedAt;
  if (endpoint.failingSince === null) {
    await tx.webhooks.endpoints.update(endpoint.tenantId, endpoint.id, { failingSince, updatedAt: now });
  }
  if (!endpoint.enabled) return null;
  let reason: string | null = null;
  if (response.statusCode === 410) reason = 'the endpoint answered 410 Gone';
  else if (now - failingSince >= AUTO_DISABLE_AFTER_MS)
    reason = `every attempt failed since ${toIso(failingSince)}`;
  if (reason !== null) await disableWebhookEndpoint(tx, { ...endpoint, failingSince }, reason, now);
  return reason;
}
