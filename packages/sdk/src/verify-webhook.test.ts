import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';

const secret = 'whsec_' + 'A'.repeat(43);
const rotated = 'whsec_' + 'B'.repeat(43);
const body = '{"id":"evt_1","type":"receipt.created","createdAt":"2026-01-01T00:00:00.000Z","data":{"x":1}}';
const now = 1_800_000_000;

function sign(key: string, timestamp = now, deliveryId = 'dlv_1', raw = body) {
  return createHmac('sha256', key).update(`${timestamp}.${deliveryId}.${raw}`).digest('hex');
}

function headers(signature: string, timestamp = now) {
  return {
    'X-PRESENCE-Signature': signature,
    'X-PRESENCE-Timestamp': String(timestamp),
    'X-PRESENCE-Delivery-Id': 'dlv_1',
    'X-PRESENCE-Event': 'receipt.created',
  };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return 'verified';
}

describe('verifyWebhook', () => {
  it('returns the event, the delivery id and the timestamp for a valid signature', () => {
    const event = verifyWebhook({
      secret,
      headers: headers(`v1=${sign(secret)}`),
      rawBody: body,
      now: now * 1000,
    });
    expect(event).toEqual({
      id: 'evt_1',
      type: 'receipt.created',
      createdAt: '2026-01-01T00:00:00.000Z',
      data: { x: 1 },
      deliveryId: 'dlv_1',
      timestamp: now,
      scheme: 'presence',
    });
  });

  it('accepts bytes, Fetch Headers and Node-style lowercase headers', () => {
    const h = headers(`v1=${sign(secret)}`);
    const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    expect(
      verifyWebhook({ secret, headers: new Headers(h), rawBody: Buffer.from(body), now: now * 1000 }).id,
    ).toBe('evt_1');
    expect(
      verifyWebhook({ secret, headers: lower, rawBody: new TextEncoder().encode(body), now: now * 1000 }).id,
    ).toBe('evt_1');
  });

  it('during a rotation: several v1 values in one header, several secrets on the receiver', () => {
    const both = `v1=${sign(rotated)} v1=${sign(secret)}`;
    expect(
      codeOf(() => verifyWebhook({ secret, headers: headers(both), rawBody: body, now: now * 1000 })),
    ).toBe('verified');
    expect(
      codeOf(() =>
        verifyWebhook({ secret: rotated, headers: headers(both), rawBody: body, now: now * 1000 }),
      ),
    ).toBe('verified');
    const comma = `v1=${sign('whsec_other')},v1=${sign(rotated)}`;
    expect(
      codeOf(() =>
        verifyWebhook({
          secrets: [secret, rotated],
          headers: headers(comma),
          rawBody: body,
          now: now * 1000,
        }),
      ),
    ).toBe('verified');
  });

  it('refuses a changed body, another delivery id, a wrong secret and other schemes', () => {
    const ok = headers(`v1=${sign(secret)}`);
    const at = now * 1000;
    expect(
      codeOf(() => verifyWebhook({ secret, headers: ok, rawBody: body.replace('1}', '2}'), now: at })),
    ).toBe('signature_mismatch');
    expect(
      codeOf(() =>
        verifyWebhook({
          secret,
          headers: { ...ok, 'X-PRESENCE-Delivery-Id': 'dlv_2' },
          rawBody: body,
          now: at,
        }),
      ),
    ).toBe('signature_mismatch');
    expect(codeOf(() => verifyWebhook({ secret: rotated, headers: ok, rawBody: body, now: at }))).toBe(
      'signature_mismatch',
    );
    expect(
      codeOf(() => verifyWebhook({ secret, headers: headers(`v0=${sign(secret)}`), rawBody: body, now: at })),
    ).toBe('signature_mismatch');
    expect(
      codeOf(() =>
        verifyWebhook({
          secret,
          headers: headers(`v1=${sign(secret).toUpperCase()}`),
          rawBody: body,
          now: at,
        }),
      ),
    ).toBe('signature_mismatch');
  });

  it('enforces the timestamp tolerance (default 5 minutes) both ways', () => {
    const h = headers(`v1=${sign(secret)}`);
    expect(codeOf(() => verifyWebhook({ secret, headers: h, rawBody: body, now: (now + 300) * 1000 }))).toBe(
      'verified',
    );
    expect(codeOf(() => verifyWebhook({ secret, headers: h, rawBody: body, now: (now + 301) * 1000 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(codeOf(() => verifyWebhook({ secret, headers: h, rawBody: body, now: (now - 301) * 1000 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(
      codeOf(() =>
        verifyWebhook({
          secret,
          headers: h,
          rawBody: body,
          now: new Date((now + 3000) * 1000),
          toleranceSeconds: 3600,
        }),
      ),
    ).toBe('verified');
  });

  it('names what is missing', () => {
    const unsigned: Record<string, string> = headers('');
    delete unsigned['X-PRESENCE-Signature'];
    expect(codeOf(() => verifyWebhook({ secret, headers: unsigned, rawBody: body }))).toBe('missing_header');
    expect(codeOf(() => verifyWebhook({ secret, headers: headers('v1=00', -1), rawBody: body }))).toBe(
      'invalid_timestamp',
    );
    expect(codeOf(() => verifyWebhook({ secrets: [], headers: headers('v1=00'), rawBody: body }))).toBe(
      'no_secret',
    );
    expect(() => verifyWebhook({ secret, headers: headers('v1=00'), rawBody: JSON.parse(body) })).toThrow(
      TypeError,
    );
  });

  it('refuses a signed body that is not an event', () => {
    const raw = '[1,2]';
    const h = headers(`v1=${sign(secret, now, 'dlv_1', raw)}`);
    expect(codeOf(() => verifyWebhook({ secret, headers: h, rawBody: raw, now: now * 1000 }))).toBe(
      'invalid_body',
    );
  });

  describe('Standard Webhooks headers (signed here by the standardwebhooks library)', () => {
    const current = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const previous = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const standard = (signature: string, timestamp = now) => ({
      'webhook-id': 'dlv_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    });
    const signWith = (key: string, raw = body) => new Webhook(key).sign('dlv_1', new Date(now * 1000), raw);

    it('verifies webhook-signature when the X-PRESENCE headers are absent, with the typed event', () => {
      const event = verifyWebhook({
        secret: current,
        headers: standard(signWith(current)),
        rawBody: body,
        now: now * 1000,
      });
      expect(event).toMatchObject({ id: 'evt_1', type: 'receipt.created', deliveryId: 'dlv_1' });
      expect(event.scheme).toBe('standard-webhooks');
    });

    it('accepts any element during a rotation, refuses other secrets, bodies and stale timestamps', () => {
      const both = standard(`${signWith(current)} ${signWith(previous)}`);
      const at = now * 1000;
      for (const key of [current, previous]) {
        expect(codeOf(() => verifyWebhook({ secret: key, headers: both, rawBody: body, now: at }))).toBe(
          'verified',
        );
      }
      const other = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
      expect(codeOf(() => verifyWebhook({ secret: other, headers: both, rawBody: body, now: at }))).toBe(
        'signature_mismatch',
      );
      expect(
        codeOf(() => verifyWebhook({ secret: current, headers: both, rawBody: body + ' ', now: at })),
      ).toBe('signature_mismatch');
      expect(
        codeOf(() => verifyWebhook({ secret: current, headers: both, rawBody: body, now: at + 301_000 })),
      ).toBe('timestamp_out_of_tolerance');
    });

    it('keys secrets issued before in base64url by their decoded bytes too', () => {
      const bytes = Buffer.alloc(32, 0xfb);
      const legacy = 'whsec_' + bytes.toString('base64url');
      const signed = new Webhook(bytes, { format: 'raw' }).sign('dlv_1', new Date(now * 1000), body);
      expect(
        codeOf(() =>
          verifyWebhook({ secret: legacy, headers: standard(signed), rawBody: body, now: now * 1000 }),
        ),
      ).toBe('verified');
    });
  });
});
