import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { standardWebhooksKey, webhookHeaders } from './sign-webhook.js';

const body = '{"id":"evt_1","type":"webhook.test","createdAt":"2026-11-22T00:00:00.000Z","data":{}}';
const now = Math.floor(Date.now() / 1000);
const headersFor = (secrets: string[]) =>
  webhookHeaders({ secrets, timestamp: now, deliveryId: 'dlv_1', eventType: 'webhook.test', body });

describe('Standard Webhooks signing', () => {
  it('keys with the base64-decoded bytes after whsec_, so the library verifies the secret as shown', () => {
    const secret = `whsec_${Buffer.alloc(32, 0xfe).toString('base64')}`;
    expect(standardWebhooksKey(secret)).toEqual(Buffer.alloc(32, 0xfe));
    expect(new Webhook(secret).verify(body, headersFor([secret]))).toEqual(JSON.parse(body));
  });

  it('keys secrets issued before in base64url by the same 32 bytes', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    const legacy = `whsec_${bytes.toString('base64url')}`;
    const headers = headersFor([legacy]);
    expect(new Webhook(bytes, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(`whsec_${bytes.toString('base64')}`).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('sends one v1 element per secret, newest first, space-separated', () => {
    const a = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const b = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const headers = headersFor([a, b]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['x-presence-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, headers)).toBeTruthy();
    expect(new Webhook(b).verify(body, headers)).toBeTruthy();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(body, headers),
    ).toThrow();
  });
});
