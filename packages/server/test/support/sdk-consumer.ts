/** The consumer programs of sdk-tarball.test.ts, run inside a project that installed only the tarball. */

export const CONSUMER_ESM = `
import { readFileSync } from 'node:fs';
import { computeActionHash, createPresenceClient, isPresenceVerified } from '@presence/sdk';
import { computeActionHashSync, verifyPack, verifyReceipt, verifyWebhook } from '@presence/sdk/node';

const read = (name) => JSON.parse(readFileSync(name, 'utf8'));
const action = { type: 'payout', amountMinor: 12500, currency: 'EUR', to: 'acct_0042' };
const actionHash = await computeActionHash(action);
const fetch = async (url, init) =>
  new Response(
    JSON.stringify({ challengeId: 'chl_01JD3W4Q8M2N5P7R9T1V3X5Z7B', actionHashHex: JSON.parse(init.body).actionHashHex, status: 'pending', expiresAt: new Date().toISOString(), publicKey: { challenge: 'x' } }),
    { status: 201, headers: { 'content-type': 'application/json' } },
  );
const client = createPresenceClient({ baseUrl: 'http://presence.invalid', apiKey: 'prs_test', fetch });
const challenge = await client.presence.createChallenge({ actionHashHex: actionHash, subject: 'user_42' });
if (isPresenceVerified({ decision: 'USER_NOT_VERIFIED', challengeId: challenge.challengeId })) throw new Error('gate open');
const hook = read('webhook.json');
const event = verifyWebhook({ secret: hook.secret, headers: hook.headers, rawBody: hook.body });
const standardHeaders = Object.fromEntries(Object.entries(hook.headers).filter(([k]) => k.startsWith('webhook-')));
const standard = verifyWebhook({ secret: hook.secret, headers: standardHeaders, rawBody: hook.body });
const receipt = verifyReceipt(read('receipt.json'), { keys: read('keys.json').keys });
const pack = await verifyPack('pack.zip', { keys: read('keys.json').keys });
console.log(JSON.stringify({
  actionHash,
  sameHashSync: computeActionHashSync(action) === actionHash && challenge.actionHashHex === actionHash,
  challengeId: challenge.challengeId,
  webhook: { type: event.type, scheme: event.scheme },
  standardOnly: standard.scheme,
  receiptValid: receipt.valid,
  packValid: pack.valid,
}));
`;

export const CONSUMER_CJS = `
const { readFileSync } = require('node:fs');
const sdk = require('@presence/sdk');
const node = require('@presence/sdk/node');
const hook = JSON.parse(readFileSync('webhook.json', 'utf8'));
sdk.computeActionHash({ a: 1 }).then((hash) => {
  console.log(JSON.stringify({
    client: typeof sdk.createPresenceClient,
    sameHash: node.computeActionHashSync({ a: 1 }) === hash,
    webhookType: node.verifyWebhook({ secret: hook.secret, headers: hook.headers, rawBody: hook.body }).type,
    verifyPack: typeof node.verifyPack,
  }));
});
`;

export const CONSUMER_TS = `
import { createPresenceClient, type ChallengeCreated, type Receipt, type WebhookEvent } from '@presence/sdk';
import { verifyWebhook } from '@presence/sdk/node';

const client = createPresenceClient({ baseUrl: 'http://localhost:8080', apiKey: 'prs_test' });
export const created = client.presence.createChallenge({ actionHashHex: 'ab'.repeat(32) });
export const receipt = client.receipts.get('rct_01JD3W4R2K6M8P0R2T4V6X8Z0B');
export const endpoint = client.webhooks.create({ url: 'https://hooks.example.org/p', events: ['receipt.created'] });
export const event = verifyWebhook({ secret: 'whsec_x', headers: {}, rawBody: '' });

export function handle(e: WebhookEvent): string {
  switch (e.type) {
    case 'receipt.created':
      // @ts-expect-error the data of receipt.created is typed: no such field
      return e.data.receiptId + e.data.credentialRef + e.data.noSuchField;
    case 'presence.denied':
      return e.data.decision;
    case 'credential.registered':
    case 'credential.revoked':
      return e.data.credential.credentialRef + e.data.credential.credentialId;
    case 'invoice.finalized':
      return e.data.invoiceId;
    case 'usage.quota_threshold':
      return String(e.data.thresholdPercent);
    case 'webhook.test':
      return e.data.endpointId;
    case 'approval.approved':
    case 'approval.rejected':
    case 'approval.expired':
    case 'approval.cancelled':
      return e.data.approvalId + e.data.status;
    case 'audit.event':
      return e.data.action + e.data.actor.type;
  }
}
// @ts-expect-error actionHashHex is required
export const missing = client.presence.createChallenge({ subject: 'user_42' });
export const first = (c: ChallengeCreated, r: Receipt): string => c.challengeId + r.receiptId;
`;
