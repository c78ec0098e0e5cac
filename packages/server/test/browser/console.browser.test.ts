/**
 * A newcomer's whole path through the tenant console in Chromium with a DevTools virtual
 * authenticator, on SQLite and on PostgreSQL: invite → passkey → overview → API key used with the
 * SDK → webhook endpoint and a signed test event at a local receiver → delivery log → a dangerous
 * change approved with the passkey (and refused when the assertion is denied) → receipt search
 * and its live checks → export pack that presence-verify accepts → invoice → sign out and back in.
 * Every page is checked with axe-core and screenshotted at desktop and narrow widths.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPresenceClient } from '@presence/sdk';
import { computeActionHashSync, verifyWebhook } from '@presence/sdk/node';
import { SoftwareAuthenticator } from '@presence/sdk/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createInvite } from '../../src/domain/console/create-invite.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openWithAuthenticator } from './browser-harness.js';
import {
  SCREENSHOT_DIR,
  screenshots,
  seriousViolations,
  describeConsoleInChromium,
  flash,
} from './console-harness.js';

const VERIFY_BIN = fileURLToPath(new URL('../../../sdk/dist/bin/presence-verify.js', import.meta.url));

describeConsoleInChromium(
  (dialect) => `console newcomer path in Chromium (${dialect})`,
  ({ service, browser, dialect }) => {
    let receiver: WebhookReceiver;
    const work = mkdtempSync(join(tmpdir(), 'presence-console-path-'));
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      rmSync(work, { recursive: true, force: true });
    });

    /** Opens a page, waits for its script, checks accessibility and takes its screenshots. */
    async function visit(page: Page, path: string, name: string): Promise<void> {
      if (path !== '') await page.goto(`${service.origin}${path}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
      await check(page, name);
    }
    async function check(page: Page, name: string): Promise<void> {
      const violations = await seriousViolations(page);
      expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
      await screenshots(page, name, dialect);
    }

    it('walks from the invite link to signing out', async () => {
      const { page, context, cdp, authenticatorId, log } = await openWithAuthenticator(browser);
      const deps = service.composed.deps;
      const settings = await service.composed.consoleSettings();
      try {
        // 1. The invite `npm start` prints: choose a name, create a passkey, land on the overview.
        const { inviteUrl } = await createInvite(deps, settings, {
          tenantId: service.devTenantId,
          role: 'owner',
          createdBy: null,
        });
        await page.goto(inviteUrl);
        await visit(page, '', 'invite');
        await page.getByLabel('Your name').fill('Ada Newcomer');
        await page.getByRole('button', { name: 'Create a passkey and join' }).click();
        await page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });
        expect(await page.getByRole('heading', { level: 1 }).textContent(), log.join('\n')).toBe('Overview');
        await visit(page, '', 'overview');

        // 2. An API key with a scope picker, shown once, used with the SDK.
        await visit(page, '/console/keys', 'keys');
        await page.getByLabel('Name').fill('backend');
        for (const scope of ['credentials:write', 'challenges:write', 'presence:verify', 'receipts:read']) {
          await page.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).check();
        }
        // credentials:write can change what the passkey protects: the key passes the passkey gate.
        await page.getByRole('button', { name: 'Create API key' }).click();
        const apiKey = (await page.locator('#approval-secret').textContent()) ?? '';
        expect(apiKey).toMatch(/^presence_/);
        await page.waitForSelector('body[data-ready="true"]');
        await check(page, 'keys-created');
        const sdk = createPresenceClient({ baseUrl: service.origin, apiKey });
        const customer = new SoftwareAuthenticator({ rpId: 'localhost', origin: service.origin });
        const options = await sdk.credentials.createOptions({ subject: 'customer-42' });
        await sdk.credentials.register({
          registrationId: options.registrationId,
          credential: customer.register({ challenge: options.publicKey.challenge }) as never,
        });
        const payout = { type: 'payout', amount: '10.00', payoutId: 'pay_1' };
        const challenge = await sdk.presence.createChallenge({
          actionHashHex: computeActionHashSync(payout),
          subject: 'customer-42',
        });
        const decided = await sdk.presence.verify({
          challengeId: challenge.challengeId,
          assertion: customer.authenticate({ challenge: challenge.publicKey.challenge }) as never,
        });
        expect(decided.decision).toBe('PRESENCE_VERIFIED');

        // 3. A webhook endpoint (secret shown once) and a signed test event at a local receiver.
        await visit(page, '/console/webhooks', 'webhooks');
        await page.getByLabel('URL (https, publicly reachable)').fill(`${receiver.url}/hooks`);
        // An endpoint receives the tenant's events: adding one passes the passkey gate.
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        expect(await flash(page)).toMatch(/^ok: Done: The endpoint /);
        const secret = (await page.locator('#approval-secret').textContent()) ?? '';
        expect(secret).toMatch(/^whsec_/);
        await page.getByRole('link', { name: /Open the endpoint/ }).click();
        await visit(page, '', 'webhook-endpoint');
        const already = receiver.received.length;
        await page.getByRole('button', { name: 'Send a test event' }).click();
        await receiver.waitFor(already + 1, 20_000);
        const test = receiver.received.find((r) => r.body.includes('"webhook.test"'))!;
        const verified = verifyWebhook({ secret, headers: test.headers as never, rawBody: test.body });
        expect(verified.type).toBe('webhook.test');
        await expect
          .poll(
            async () => {
              await page.reload();
              return page.locator('#delivery-log').textContent();
            },
            { timeout: 20_000 },
          )
          .toContain('succeeded');
        await page.waitForSelector('body[data-ready="true"]');
        await check(page, 'webhook-delivery-log');

        // 4. A dangerous change: refused when the assertion is denied, done when approved.
        await visit(page, '/console/keys', 'keys-with-backend');
        const keysBefore = (await deps.store.apiKeys.list(service.devTenantId, { limit: 100 })).length;
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
        await page.getByRole('button', { name: 'Rotate backend' }).click();
        expect(await flash(page)).toMatch(/^error: Refused: /);
        expect(await page.locator('#flash').textContent()).not.toContain('NotAllowedError');
        await check(page, 'approval-refused');
        expect((await deps.store.apiKeys.list(service.devTenantId, { limit: 100 })).length).toBe(keysBefore);
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
        await page.getByRole('button', { name: 'Revoke backend' }).click();
        expect(await flash(page)).toMatch(/^ok: Done: API key backend .* is revoked\. \(receipt rct_/);
        await expect
          .poll(
            async () =>
              (
                await fetch(`${service.origin}/v1/presence/receipts`, {
                  headers: { authorization: `Bearer ${apiKey}` },
                })
              ).status,
          )
          .toBe(401);
        await visit(page, '/console/audit', 'audit');
        const revokeLine = page.locator('#audit-log tr', { hasText: 'api_key.revoked' });
        expect(await revokeLine.textContent()).toMatch(/rct_/);

        // 5. Receipts: search, the receipt page with its live checks, JSON download.
        await visit(page, '/console/receipts?subject=customer-42', 'receipts');
        await page.getByRole('link', { name: decided.receiptId! }).click();
        await visit(page, '', 'receipt');
        const checks = page.locator('#receipt-checks li');
        expect(await checks.count()).toBeGreaterThanOrEqual(5);
        expect(await page.locator('#receipt-checks li[data-ok="false"]').count()).toBe(0);
        const json = page.waitForEvent('download');
        await page.getByRole('link', { name: 'Download the receipt as JSON' }).click();
        expect((await json).suggestedFilename()).toBe(`${decided.receiptId}.json`);

        // 6. An export pack with progress, downloaded, accepted by presence-verify.
        await page.goto(`${service.origin}/console/receipts`);
        await page.waitForSelector('body[data-ready="true"]');
        await page.getByRole('button', { name: 'Export a signed pack' }).click();
        const link = page.locator('#export-download');
        await link.waitFor({ timeout: 30_000 });
        await check(page, 'export-ready');
        const download = page.waitForEvent('download');
        await link.click();
        const packPath = join(work, 'pack.zip');
        await (await download).saveAs(packPath);
        const keys = await (await fetch(`${service.origin}/.well-known/presence/keys.json`)).text();
        writeFileSync(join(work, 'keys.json'), keys);
        const verdict = spawnSync(
          process.execPath,
          [VERIFY_BIN, packPath, '--keys', join(work, 'keys.json')],
          {
            encoding: 'utf8',
          },
        );
        expect(verdict.status, verdict.stdout + verdict.stderr).toBe(0);
        expect(verdict.stdout).toMatch(/^VERDICT: PASS/m);

        // 7. The other pages a newcomer looks at, then the invoice in the browser.
        await visit(page, '/console/credentials?subject=customer-42', 'credentials');
        await visit(page, '/console/policy', 'policy');
        await visit(page, '/console/members', 'members');
        await visit(page, '/console/usage', 'usage');
        await page.locator('#invoices a').first().click();
        await page.waitForLoadState();
        expect(await page.title()).toMatch(/invoice/i);
        await check(page, 'invoice');

        // 8. Sign out, see the sign-in page, sign back in with the passkey (no user name).
        await page.goto(`${service.origin}/console`);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${service.origin}/console/sign-in`);
        await visit(page, '', 'sign-in');
        expect((await fetch(`${service.origin}/console`, { redirect: 'manual' })).status).toBe(303);
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        await page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');

        // 9. The used invite link is refused with a problem page that says why.
        const reused = await page.goto(inviteUrl);
        expect(reused?.status()).toBe(409);
        expect(await page.locator('.problem .detail').textContent()).toContain('already used');
        await visit(page, '', 'problem-invite-used');
      } catch (error) {
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${dialect}-FAILED.png`), fullPage: true });
        throw new Error(`${String(error)}\nat ${page.url()}\n${log.join('\n')}`, { cause: error });
      } finally {
        await context.close();
      }
    }, 300_000);
  },
);
