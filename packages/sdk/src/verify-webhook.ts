import { createHmac, timingSafeEqual } from 'node:crypto';
import { PresenceUsageError } from './usage-error.js';
import type { WebhookEvent } from '#contract';

/**
 * Verifies a Presence webhook request before anything trusts it. Every attempt carries two
 * signatures over the same raw body, made with the same endpoint secret (docs/webhooks.md):
 *
 * - the contract's (checked when `X-PRESENCE-Signature` is present): one or more `v1=<hex>`
 *   elements, HMAC-SHA256 keyed with the whole `whsec_…` string as UTF-8 over
 *   `"<X-PRESENCE-Timestamp>.<X-PRESENCE-Delivery-Id>.<raw body>"`;
 * - Standard Webhooks' (checked otherwise, e.g. behind a proxy that keeps only those headers):
 *   `webhook-signature` with one or more `v1,<base64>` elements, HMAC-SHA256 keyed with the
 *   base64-decoded bytes after `whsec_` over `"<webhook-id>.<webhook-timestamp>.<raw body>"`.
 *
 * Several elements (a secret rotation) and several secrets are accepted; comparison is in
 * constant time; the timestamp must be within `toleranceSeconds` of now. Pass the body exactly
 * as received: re-serialized JSON does not verify. Deliveries are at least once: dedupe on
 * `deliveryId`.
 */
export interface VerifyWebhookOptions {
  /** The endpoint's `whsec_…` secret; or `secrets` with several during a rotation. */
  secret?: string;
  secrets?: readonly string[];
  /** Node's `req.headers`, a plain object (any letter case) or a Fetch `Headers`. */
  headers: Headers | Record<string, string | readonly string[] | undefined>;
  rawBody: string | Uint8Array;
  /** Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (a Date or epoch milliseconds); for tests. */
  now?: Date | number;
}

/** What both schemes add to the event: the delivery to dedupe on and the signed attempt time. */
export interface WebhookDeliveryInfo {
  /** Stable across retries of this event to this endpoint (= `webhook-id`): the key to dedupe on. */
  deliveryId: string;
  /** The attempt's Unix time in seconds, as signed. */
  timestamp: number;
  /** Which signature was checked. */
  scheme: 'presence' | 'standard-webhooks';
}

/**
 * A verified delivery: the event body, discriminated by `type` (`switch (event.type)` narrows
 * `data`), plus the delivery fields. Event types added in later versions arrive too: keep a
 * default branch.
 */
export type VerifiedWebhook = WebhookEvent & WebhookDeliveryInfo;

export type WebhookVerificationCode =
  | 'no_secret'
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_body';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

interface Scheme {
  name: WebhookDeliveryInfo['scheme'];
  signature: string;
  timestamp: string;
  id: string;
  key: (secret: string) => Buffer;
  signed: (timestamp: number, id: string) => string;
  /** The MACs an element of the signature header offers, as bytes. */
  macs: (header: string) => Buffer[];
}

const PRESENCE: Scheme = {
  name: 'presence',
  signature: 'x-presence-signature',
  timestamp: 'x-presence-timestamp',
  id: 'x-presence-delivery-id',
  key: (secret) => Buffer.from(secret, 'utf8'),
  signed: (timestamp, id) => `${timestamp}.${id}.`,
  macs: (header) =>
    elements(header)
      .filter((part) => /^v1=[0-9a-f]{64}$/.test(part))
      .map((part) => Buffer.from(part.slice(3), 'hex')),
};

const STANDARD: Scheme = {
  name: 'standard-webhooks',
  signature: 'webhook-signature',
  timestamp: 'webhook-timestamp',
  id: 'webhook-id',
  // Standard Webhooks keys are the bytes after `whsec_`, base64 (older Presence secrets: base64url).
  key: (secret) => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'),
  signed: (timestamp, id) => `${id}.${timestamp}.`,
  macs: (header) =>
    elements(header)
      .filter((part) => /^v1,[A-Za-z0-9+/]{43}=$/.test(part))
      .map((part) => Buffer.from(part.slice(3), 'base64')),
};

const elements = (header: string) => header.split(/[\s]+|,(?=v1[=,])/).filter((p) => p !== '');

export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook {
  const secrets = [...(options.secrets ?? []), ...(options.secret === undefined ? [] : [options.secret])];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new WebhookVerificationError('no_secret', 'pass the endpoint secret (or secrets)');
  }
  const body = rawBodyBytes(options.rawBody);
  const scheme = header(options.headers, PRESENCE.signature, false) === '' ? STANDARD : PRESENCE;
  const signature = header(options.headers, scheme.signature);
  const timestampText = header(options.headers, scheme.timestamp);
  const deliveryId = header(options.headers, scheme.id);
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError('invalid_timestamp', `${scheme.timestamp} is not Unix seconds`);
  }
  const timestamp = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `${scheme.timestamp} is more than ${tolerance} s away from now (a replay, or a wrong clock)`,
    );
  }
  const signed = Buffer.concat([Buffer.from(scheme.signed(timestamp, deliveryId), 'utf8'), body]);
  const expected = secrets.map((s) => createHmac('sha256', scheme.key(s)).update(signed).digest());
  const offered = scheme.macs(signature);
  if (!offered.some((mac) => expected.some((e) => mac.length === e.length && timingSafeEqual(mac, e)))) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      `no v1 signature in ${scheme.signature} matches any of the secrets`,
    );
  }
  return { ...parseEvent(body), deliveryId, timestamp, scheme: scheme.name } as VerifiedWebhook;
}

function header(headers: VerifyWebhookOptions['headers'], name: string, required = true): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') {
    value = (headers as Headers).get(name);
  } else {
    const entries = Object.entries(headers as Record<string, string | readonly string[] | undefined>);
    value = entries.find(([key]) => key.toLowerCase() === name)?.[1];
  }
  const text = Array.isArray(value) ? value.join(' ') : (value as string | null | undefined);
  if (text === undefined || text === null || text.trim() === '') {
    if (!required) return '';
    throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  }
  return text.trim();
}

function rawBodyBytes(raw: unknown): Buffer {
  if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  throw new PresenceUsageError(
    'rawBody',
    'the request body exactly as received, as a string or bytes (e.g. express.raw()), not parsed JSON',
    raw,
  );
}

function parseEvent(body: Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
  const event = parsed as { id?: unknown; type?: unknown; createdAt?: unknown; data?: unknown };
  if (typeof event.id !== 'string' || typeof event.type !== 'string' || typeof event.createdAt !== 'string') {
    throw new WebhookVerificationError(
      'invalid_body',
      'the body is not a Presence event {id, type, createdAt, data}',
    );
  }
  return { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data } as WebhookEvent;
}
