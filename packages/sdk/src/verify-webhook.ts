import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a Presence webhook request (contract §7) before anything trusts it:
 * `X-PRESENCE-Signature` holds one or more `v1=<hex>` elements (several during a secret rotation,
 * separated by spaces or commas); one of them must equal
 * HMAC-SHA256(secret as UTF-8, "<X-PRESENCE-Timestamp>.<X-PRESENCE-Delivery-Id>.<raw body>")
 * for one of your secrets, compared in constant time, and the timestamp must be within
 * `toleranceSeconds` of now. Pass the body exactly as received: re-serialized JSON does not verify.
 * Deliveries are at least once: dedupe on `deliveryId`.
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

export interface VerifiedWebhook<T = unknown> {
  /** The event id (the same across deliveries of one event to several endpoints). */
  id: string;
  type: string;
  createdAt: string;
  data: T;
  /** Stable across retries of this event to this endpoint: the key to dedupe on. */
  deliveryId: string;
  /** The attempt's Unix time in seconds, as signed. */
  timestamp: number;
}

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

export function verifyWebhook<T = unknown>(options: VerifyWebhookOptions): VerifiedWebhook<T> {
  const secrets = [...(options.secrets ?? []), ...(options.secret === undefined ? [] : [options.secret])];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new WebhookVerificationError('no_secret', 'pass the endpoint secret (or secrets)');
  }
  const body = rawBodyBytes(options.rawBody);
  const signature = header(options.headers, 'x-presence-signature');
  const timestampText = header(options.headers, 'x-presence-timestamp');
  const deliveryId = header(options.headers, 'x-presence-delivery-id');
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError('invalid_timestamp', 'X-PRESENCE-Timestamp is not Unix seconds');
  }
  const timestamp = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `X-PRESENCE-Timestamp is more than ${tolerance} s away from now (a replay, or a wrong clock)`,
    );
  }
  const signed = Buffer.concat([Buffer.from(`${timestamp}.${deliveryId}.`, 'utf8'), body]);
  const expected = secrets.map((s) => createHmac('sha256', Buffer.from(s, 'utf8')).update(signed).digest());
  const offered = signature
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
  if (!offered.some((mac) => expected.some((e) => timingSafeEqual(mac, e)))) {
    throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches any of the secrets');
  }
  return { ...parseEvent<T>(body), deliveryId, timestamp };
}

function header(headers: VerifyWebhookOptions['headers'], name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') {
    value = (headers as Headers).get(name);
  } else {
    const entries = Object.entries(headers as Record<string, string | readonly string[] | undefined>);
    value = entries.find(([key]) => key.toLowerCase() === name)?.[1];
  }
  const text = Array.isArray(value) ? value.join(' ') : (value as string | null | undefined);
  if (text === undefined || text === null || text.trim() === '') {
    throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  }
  return text.trim();
}

function rawBodyBytes(raw: unknown): Buffer {
  if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  throw new TypeError('rawBody must be the request body as received (string or bytes), not parsed JSON');
}

function parseEvent<T>(body: Buffer): { id: string; type: string; createdAt: string; data: T } {
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
  return { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data as T };
}
