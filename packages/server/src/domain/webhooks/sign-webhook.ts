import { createHmac } from 'node:crypto';

/**
 * The body of every attempt: `{id, type, createdAt, data}` with `id` the event id. `data` is
 * the outbox payload text exactly as stored, so every attempt sends the same bytes.
 */
export function webhookBody(event: {
  id: string;
  type: string;
  createdAt: number;
  payloadJson: string;
}): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: new Date(event.createdAt).toISOString(),
  });
  return `${head.slice(0, -1)},"data":${event.payloadJson}}`;
}

/**
 * `X-PRESENCE-Signature`: `v1=<lowercase hex HMAC-SHA256(secret, "<timestamp>.<deliveryId>.<body>")>`,
 * the key being the secret string as UTF-8. During a rotation overlap one `v1=` element per active
 * secret, newest first, separated by a space.
 */
export function signatureHeader(
  secrets: readonly string[],
  timestamp: number,
  deliveryId: string,
  body: string,
): string {
  const signed = `${timestamp}.${deliveryId}.${body}`;
  return secrets.map((secret) => `v1=${hmac(Buffer.from(secret, 'utf8'), signed, 'hex')}`).join(' ');
}

/**
 * The Standard Webhooks key of a secret: the bytes the base64 text after `whsec_` encodes.
 * Secrets are issued as `whsec_<standard base64>`, which Standard Webhooks libraries decode as
 * they are; secrets issued before were base64url, which Node's decoder reads as well.
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * `webhook-signature` (Standard Webhooks): `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`
 * per active secret, newest first, separated by a space.
 */
export function standardSignatureHeader(
  secrets: readonly string[],
  timestamp: number,
  deliveryId: string,
  body: string,
): string {
  const signed = `${deliveryId}.${timestamp}.${body}`;
  return secrets.map((secret) => `v1,${hmac(standardWebhooksKey(secret), signed, 'base64')}`).join(' ');
}

/** HMAC-SHA256 of `text` (UTF-8) under `key`, in `encoding`. */
const hmac = (key: Buffer, text: string, encoding: 'hex' | 'base64') =>
  createHmac('sha256', key).update(text, 'utf8').digest(encoding);

/** Both header sets on every attempt: the contract's X-PRESENCE-* and Standard Webhooks'. */
export function webhookHeaders(input: {
  secrets: readonly string[];
  timestamp: number;
  deliveryId: string;
  eventType: string;
  body: string;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Presence-Webhooks/1',
    'x-presence-signature': signatureHeader(input.secrets, input.timestamp, input.deliveryId, input.body),
    'x-presence-timestamp': String(input.timestamp),
    'x-presence-delivery-id': input.deliveryId,
    'x-presence-event': input.eventType,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': standardSignatureHeader(
      input.secrets,
      input.timestamp,
      input.deliveryId,
      input.body,
    ),
  };
}
