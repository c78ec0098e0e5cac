#!/usr/bin/env node
// A payout gated by Presence, end to end, starting from nothing but an API URL and key:
// enroll an authenticator, hash the exact payout, ask for a challenge, let the authenticator sign
// it, verify, and execute the payout only on PRESENCE_VERIFIED, storing receiptHashHex with it.
//
//   PRESENCE_API_URL=http://localhost:8080 PRESENCE_API_KEY=presence_… node examples/node-payout/payout.mjs
//
// The key needs the scopes policy:read, credentials:write, challenges:write, presence:verify and
// receipts:read (the development tenant's key printed by `npm start` has them all).
// THE AUTHENTICATOR HERE IS SOFTWARE (@presence/sdk/testing) standing in for the browser:
// in production those two calls are `startRegistration` / `startAuthentication` of
// @simplewebauthn/browser, run by the person on their own device. See docs/integration.md.
/* global console */
import { randomUUID } from 'node:crypto';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { computeActionHash, createPresenceClient, isPresenceVerified, PresenceApiError } from '@presence/sdk';
import { verifyReceipt } from '@presence/sdk/node';
import { SoftwareAuthenticator } from '@presence/sdk/testing';

/**
 * Your database, reduced to what matters: a payout row and its receipt hash are written in ONE
 * transaction (in SQL: BEGIN; INSERT INTO payouts (..., presence_receipt_hash) VALUES (...); COMMIT),
 * and only for a verified decision about exactly this payout.
 */
class PayoutLedger {
  rows = new Map();

  async executePayout(payout, approval) {
    if (!isPresenceVerified(approval.result)) {
      throw new Error(`payout ${payout.payoutId} denied: ${approval.result.decision}`);
    }
    if (approval.actionHashHex !== (await computeActionHash(payout))) {
      throw new Error('the approval is for another action');
    }
    if (this.rows.has(payout.payoutId)) throw new Error(`payout ${payout.payoutId} was already executed`);
    // --- one transaction: the money movement and its evidence ---
    this.rows.set(payout.payoutId, { ...payout, presenceReceiptHashHex: approval.result.receiptHashHex });
    // --- commit ---
  }
}

async function enroll(presence, subject, authenticator) {
  const options = await presence.credentials.createOptions({ subject, displayName: 'Payout approver' });
  // Browser: const credential = await startRegistration({ optionsJSON: options.publicKey });
  const credential = authenticator.register(options.publicKey);
  const created = await presence.credentials.register({ registrationId: options.registrationId, credential });
  return created.credential;
}

/** The gate: a challenge bound to the action's hash, signed by the authenticator, then verified. */
async function requestApproval(presence, { payout, subject, authenticator }) {
  const actionHashHex = await computeActionHash(payout);
  const challenge = await presence.presence.createChallenge({ actionHashHex, subject, purpose: 'payout' });
  // Browser: const assertion = await startAuthentication({ optionsJSON: challenge.publicKey });
  const assertion = authenticator.authenticate(challenge.publicKey);
  const result = await presence.presence.verify({ challengeId: challenge.challengeId, assertion });
  return { actionHashHex, challengeId: challenge.challengeId, assertion, result };
}

export async function runPayoutExample({ baseUrl, apiKey, origin }) {
  const presence = createPresenceClient({ baseUrl, apiKey });
  const { rules } = await presence.policy.get();
  const authenticator = new SoftwareAuthenticator({
    rpId: rules.rpId,
    origin: origin ?? rules.allowedOrigins[0],
  });
  const subject = `approver-${randomUUID()}`; // your own opaque reference, never a name or e-mail
  const credential = await enroll(presence, subject, authenticator);

  // The exact action, as your backend is about to execute it: amounts as strings, stable ids.
  const payout = {
    type: 'payout',
    payoutId: `po_${randomUUID()}`,
    amount: '250.00',
    currency: 'EUR',
    creditorIban: 'DE89370400440532013000',
    reference: 'Invoice 2026-118',
  };
  const ledger = new PayoutLedger();
  const approval = await requestApproval(presence, { payout, subject, authenticator });
  await ledger.executePayout(payout, approval);

  // A replayed assertion is refused by the service, and so by the ledger.
  const replay = await presence.presence.verify({
    challengeId: approval.challengeId,
    assertion: approval.assertion,
  });
  const replayExecuted = await ledger
    .executePayout(
      { ...payout, payoutId: `po_${randomUUID()}` },
      {
        ...approval,
        result: replay,
      },
    )
    .then(
      () => true,
      () => false,
    );

  // Anyone can check the receipt later, offline, against the service's published keys.
  const signed = await presence.receipts.get(approval.result.receiptId);
  const { keys } = await presence.wellKnown.keys();
  const offline = verifyReceipt(signed, { keys });

  return {
    subject,
    credentialRef: credential.credentialRef,
    payoutId: payout.payoutId,
    actionHashHex: approval.actionHashHex,
    challengeId: approval.challengeId,
    decision: approval.result.decision,
    receiptId: approval.result.receiptId,
    receiptHashHex: ledger.rows.get(payout.payoutId).presenceReceiptHashHex,
    replayDecision: replay.decision,
    replayExecuted,
    receiptVerifiesOffline: offline.valid,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseUrl = process.env.PRESENCE_API_URL;
  const apiKey = process.env.PRESENCE_API_KEY;
  if (!baseUrl || !apiKey) {
    console.error('set PRESENCE_API_URL and PRESENCE_API_KEY (optionally PRESENCE_ORIGIN)');
    process.exit(2);
  }
  try {
    const summary = await runPayoutExample({ baseUrl, apiKey, origin: process.env.PRESENCE_ORIGIN });
    console.log(JSON.stringify(summary, null, 2));
  } catch (error) {
    if (error instanceof PresenceApiError) {
      console.error(
        `Presence said ${error.status} ${error.code}: ${error.detail} (requestId ${error.requestId})`,
      );
    } else console.error(error);
    process.exit(1);
  }
}
