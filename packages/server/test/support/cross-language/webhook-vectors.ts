/**
 * Webhook vectors: bodies and headers made by the service's own signing code (sign-webhook.ts),
 * under both schemes of docs/api-contract.md#8-webhooks, and the answer every verifier must give at `now`.
 */
import { webhookBody, webhookHeaders } from '../../../src/domain/webhooks/sign-webhook.js';

export interface WebhookVector {
  name: string;
  /** The secrets the receiver holds (one, or two during a rotation). */
  secrets: string[];
  headers: Record<string, string>;
  rawBody: string;
  /** Unix seconds the receiver checks at; tolerance is 300 s. */
  now: number;
  expect: { valid: true; scheme: 'presence' | 'standard-webhooks' } | { valid: false; error: string };
}

export function webhookVectors(secrets: [string, string], data: unknown, at: number): WebhookVector[] {
  const [current, previous] = secrets;
  const timestamp = Math.floor(at / 1000);
  const body = webhookBody({
    id: 'evt_01KAXN6Y7V3J0Q7ZKZ8D2W4C5B',
    type: 'receipt.created',
    createdAt: at,
    payloadJson: JSON.stringify(data),
  });
  const deliveryId = 'dlv_01KAXN6Y7W5M7S1T9E6R3B2A0C';
  const all = webhookHeaders({
    secrets: [current],
    timestamp,
    deliveryId,
    eventType: 'receipt.created',
    body,
  });
  const rotating = webhookHeaders({
    secrets: [current, previous],
    timestamp,
    deliveryId,
    eventType: 'receipt.created',
    body,
  });
  const standardOnly = Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('webhook-')));
  const ok = (scheme: 'presence' | 'standard-webhooks') => ({ valid: true as const, scheme });
  const no = (error: string) => ({ valid: false as const, error });
  const v = (
    name: string,
    headers: Record<string, string>,
    expect: WebhookVector['expect'],
    more: Partial<WebhookVector> = {},
  ): WebhookVector => ({
    name,
    secrets: [current],
    headers,
    rawBody: body,
    now: timestamp + 5,
    expect,
    ...more,
  });
  const upper = Object.fromEntries(Object.entries(all).map(([k, val]) => [k.toUpperCase(), val]));
  return [
    v('X-PRESENCE-Signature', all, ok('presence')),
    v('header names in upper case', upper, ok('presence')),
    v('Standard Webhooks headers only', standardOnly, ok('standard-webhooks')),
    v('rotation: the receiver holds the previous secret', rotating, ok('presence'), { secrets: [previous] }),
    v(
      'rotation, Standard Webhooks: the previous secret',
      Object.fromEntries(Object.entries(rotating).filter(([k]) => k.startsWith('webhook-'))),
      ok('standard-webhooks'),
      { secrets: [previous] },
    ),
    v('the body changed by one byte', all, no('signature_mismatch'), {
      rawBody: body.replace('receipt.created', 'receipt.createc'),
    }),
    v('the body changed, Standard Webhooks', standardOnly, no('signature_mismatch'), { rawBody: `${body} ` }),
    v('another secret', all, no('signature_mismatch'), { secrets: [previous] }),
    v(
      'another delivery id',
      { ...all, 'x-presence-delivery-id': 'dlv_01KAXN6Y7W5M7S1T9E6R3B2A0D' },
      no('signature_mismatch'),
    ),
    v(
      'another timestamp',
      { ...all, 'x-presence-timestamp': String(timestamp + 1) },
      no('signature_mismatch'),
    ),
    v('older than the tolerance', all, no('timestamp_out_of_tolerance'), { now: timestamp + 301 }),
    v('newer than the tolerance', all, no('timestamp_out_of_tolerance'), { now: timestamp - 301 }),
    v(
      'the timestamp is not Unix seconds',
      { ...all, 'x-presence-timestamp': '2026-01-01T00:00:00Z' },
      no('invalid_timestamp'),
    ),
    v('no signature header of either scheme', { 'content-type': 'application/json' }, no('missing_header')),
    v(
      'the X-PRESENCE signature is wrong, the Standard one right: X-PRESENCE is the one checked',
      { ...all, 'x-presence-signature': `v1=${'0'.repeat(64)}` },
      no('signature_mismatch'),
    ),
  ];
}
