import type { ServiceKey, SignedReceipt } from '@presence/contract';
import { computeActionHashSync as computeActionHash, verifyReceipt } from '@presence/sdk/node';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumMissing,
  launchChromium,
  openWithAuthenticator,
  startService,
  type RunningService,
} from './browser-harness.js';

const PAYOUT = {
  type: 'payout',
  amount: '250.00',
  currency: 'EUR',
  iban: 'DE89370400440532013000',
  reference: 'Invoice 2026-118',
};
const SCREENSHOT = '/tmp/demo.png';

async function enroll(page: Page): Promise<void> {
  await page.click('#enroll-button');
  await page.waitForSelector('#enroll-status[data-kind="ok"], #enroll-status[data-kind="error"]', {
    timeout: 20_000,
  });
  expect(
    await page.getAttribute('#enroll-status', 'data-kind'),
    (await page.textContent('#enroll-status')) ?? '',
  ).toBe('ok');
}

function flipLastByte(b64url: string): string {
  const bytes = Buffer.from(b64url, 'base64url');
  const last = bytes.length - 1;
  bytes.writeUInt8(bytes.readUInt8(last) ^ 0x01, last);
  return bytes.toString('base64url');
}

/** Clicks approve and waits until the page shows an outcome: verified, denied or error. */
async function approve(page: Page): Promise<string> {
  await page.click('#approve-button');
  const outcome = page.locator('#decision:not([data-outcome="none"])');
  const failed = page.locator('#approve-status[data-kind="error"]');
  await outcome.or(failed).first().waitFor({ timeout: 25_000 });
  if (await failed.isVisible()) return 'error';
  return (await page.getAttribute('#decision', 'data-outcome')) ?? 'none';
}

describe.skipIf(chromiumMissing())('demo page in Chromium with a virtual authenticator', () => {
  let service: RunningService;
  let browser: Browser;
  beforeAll(async () => {
    service = await startService();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('enrolls a passkey, approves the payout and shows a receipt that verifies offline', async () => {
    const { page, context, log } = await openWithAuthenticator(browser);
    try {
      await page.goto(`${service.origin}/demo`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
      const subject = (await page.textContent('#subject')) ?? '';
      expect(subject).toMatch(/^demo-[0-9a-f]{32}$/);
      expect(JSON.parse((await page.textContent('#action-json')) ?? '')).toMatchObject(PAYOUT);

      await enroll(page);
      expect(await approve(page), log.join('\n')).toBe('verified');
      const action = JSON.parse((await page.textContent('#action-json')) ?? '') as Record<string, string>;
      expect(action).toMatchObject(PAYOUT);
      expect(action['payoutId']).toMatch(/^pay_[0-9a-f]{24}$/);
      expect(await page.textContent('#action-hash')).toBe(computeActionHash(action));
      expect(await page.textContent('#decision strong')).toBe('PRESENCE_VERIFIED');
      await page.waitForSelector('#receipt-block:not([hidden])');
      const receiptId = (await page.textContent('#receipt-id')) ?? '';
      const receiptHashHex = (await page.textContent('#receipt-hash')) ?? '';
      const shown = JSON.parse((await page.textContent('#receipt-json')) ?? '') as SignedReceipt;
      expect(shown.receipt.receiptId).toBe(receiptId);
      expect(shown.receiptHashHex).toBe(receiptHashHex);
      expect(shown.receipt).toMatchObject({
        actionHashHex: computeActionHash(action),
        subject,
        rpId: 'localhost',
        origin: service.origin,
      });
      expect(shown.receipt.flags).toMatchObject({ UP: true, UV: true });
      expect(await page.getAttribute('#receipt-link', 'href')).toBe(`/demo/api/receipts/${receiptId}`);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // Offline: the receipt as linked from the page, against the keys the service publishes.
      const linked = (await (
        await fetch(`${service.origin}/demo/api/receipts/${receiptId}`)
      ).json()) as SignedReceipt;
      expect(linked).toEqual(shown);
      const { keys } = (await (await fetch(`${service.origin}/.well-known/presence/keys.json`)).json()) as {
        keys: ServiceKey[];
      };
      const report = verifyReceipt(linked, { keys });
      expect(report.valid, JSON.stringify(report.checks, null, 2)).toBe(true);
      expect(report.receiptHashHex).toBe(receiptHashHex);

      // A second approval is a distinct payout: another payoutId, another action hash. Its challenge
      // is held back a moment, so the first approval's decision must not stand for it meanwhile.
      await page.route('**/demo/api/challenges', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await route.continue();
      });
      expect(await approve(page), log.join('\n')).toBe('verified');
      const second = JSON.parse((await page.textContent('#action-json')) ?? '') as Record<string, string>;
      expect(second['payoutId']).not.toBe(action['payoutId']);
      expect(await page.textContent('#action-hash')).not.toBe(computeActionHash(action));
    } finally {
      await context.close();
    }
  });

  it('does not show success when the authenticator cannot verify the user', async () => {
    const { page, context, cdp, authenticatorId, log } = await openWithAuthenticator(browser);
    try {
      await page.goto(`${service.origin}/demo`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
      await enroll(page);
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
      const outcome = await approve(page);
      expect(['denied', 'error'], log.join('\n')).toContain(outcome);
      expect(await page.textContent('#decision')).not.toContain('PRESENCE_VERIFIED');
      // Refusals are explained in words, never as a raw DOMException name.
      expect(await page.textContent('#decision')).not.toMatch(/NotAllowedError|SecurityError/);
      expect(await page.isHidden('#receipt-block')).toBe(true);
      await page.screenshot({ path: '/tmp/demo-denied.png', fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('shows the service denial when the signed bytes are altered on the way', async () => {
    const { page, context, log } = await openWithAuthenticator(browser);
    try {
      await page.goto(`${service.origin}/demo`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
      await enroll(page);
      await page.route('**/demo/api/verify', async (route) => {
        const body = route.request().postDataJSON() as { assertion: { response: { signature: string } } };
        body.assertion.response.signature = flipLastByte(body.assertion.response.signature);
        await route.continue({ postData: JSON.stringify(body) });
      });
      expect(await approve(page), log.join('\n')).toBe('denied');
      expect(await page.textContent('#decision strong')).toBe('Denied: SIGNATURE_INVALID');
      expect(await page.isHidden('#receipt-block')).toBe(true);
    } finally {
      await context.close();
    }
  });
});
