/**
 * The console's day-one controls in Chromium with a DevTools virtual authenticator, on SQLite and
 * PostgreSQL: the audit page (filters, CSV download), cancelling an invite, changing a member's
 * role with the passkey, naming a passkey, editing a webhook endpoint with the passkey and reading
 * a delivery's bodies, denied attempts, and signing in with a passkey the console does not know. Every page is
 * checked with axe-core and screenshotted at 1280 and 390 px.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createPresenceClient } from '@presence/sdk';
import { SoftwareAuthenticator } from '@presence/sdk/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_SCOPES } from '../../src/domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../../src/domain/api-keys/create-api-key.js';
import { createInvite } from '../../src/domain/console/create-invite.js';
import { ConsoleClient } from '../support/console-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openWithAuthenticator } from './browser-harness.js';
import { screenshots, seriousViolations, describeConsoleInChromium, flash } from './console-harness.js';

describeConsoleInChromium(
  (dialect) => `console day-one controls in Chromium (${dialect})`,
  ({ service, browser, dialect }) => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver(() => ({ status: 200, body: '{"received":true}' }));
    });
    afterAll(async () => {
      await receiver?.close();
    });

    async function visit(page: Page, path: string, name: string): Promise<void> {
      if (path !== '') await page.goto(`${service.origin}${path}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
      const violations = await seriousViolations(page);
      expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
      await screenshots(page, `day-one-${name}`, dialect);
    }

    it('an owner uses the day-one controls, and every change is in the audit log', async () => {
      const { page, context, log } = await openWithAuthenticator(browser);
      const deps = service.composed.deps;
      const settings = await service.composed.consoleSettings();
      const tenantId = service.devTenantId;
      try {
        const { inviteUrl } = await createInvite(deps, settings, {
          tenantId,
          role: 'owner',
          createdBy: null,
        });
        await page.goto(inviteUrl);
        await page.getByLabel('Your name').fill('Dana');
        await page.getByRole('button', { name: 'Create a passkey and join' }).click();
        await page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });

        // Members: a developer who joined elsewhere, an open invite to cancel, a passkey to name.
        const dev = new ConsoleClient(service.composed.app, settings);
        const devInvite = await createInvite(deps, settings, {
          tenantId,
          role: 'developer',
          createdBy: null,
        });
        expect((await dev.join(devInvite.inviteUrl, 'Devon')).status).toBe(200);
        await createInvite(deps, settings, { tenantId, role: 'auditor', createdBy: null });
        await visit(page, '/console/members', 'members');
        // The invite page named the first passkey by what the browser says about this device.
        expect(await page.locator('.members').textContent()).toMatch(/Chrome on Linux/);
        await page.getByRole('button', { name: /^Cancel invite for a auditor/ }).click();
        await page.waitForSelector('body[data-ready="true"]');
        expect(await page.getByRole('button', { name: /^Cancel invite/ }).count()).toBe(0);
        await page.getByLabel('Device name').first().fill('Virtual authenticator');
        await page
          .getByRole('button', { name: /^Name passkey/ })
          .first()
          .click();
        await page.waitForSelector('body[data-ready="true"]');
        expect(await page.locator('.members').textContent()).toContain('Virtual authenticator');
        await page.getByLabel('New role for Devon').selectOption('admin');
        await page.getByRole('button', { name: 'Change Devon’s role' }).click();
        expect(await flash(page), log.join('\n')).toMatch(/^ok: .*Devon is now admin \(was developer\)/);

        // Webhooks: edit the endpoint, send a test event, read what was sent and answered.
        const { secret: apiKey } = await createApiKey(
          deps,
          tenantId,
          { name: 'ops', scopes: [...OWNER_SCOPES] },
          OWNER_SCOPES,
        );
        const sdk = createPresenceClient({ baseUrl: service.origin, apiKey });
        const { endpoint } = await sdk.webhooks.create({
          url: `${receiver.url}/a`,
          events: ['receipt.created'],
        });
        await visit(page, `/console/webhooks/${endpoint.id}`, 'webhook-endpoint');
        await page.getByLabel('URL (https, publicly reachable)').fill(`${receiver.url}/siem`);
        await page.getByLabel('Description').fill('SIEM');
        await page.getByRole('checkbox', { name: 'audit.event' }).check();
        // The URL and events decide where the tenant's events go: saving asks for the passkey, then
        // the page reloads with the endpoint as changed.
        await page.getByRole('button', { name: 'Save endpoint' }).click();
        await page.locator('dl.facts', { hasText: `${receiver.url}/siem` }).waitFor({ timeout: 25_000 });
        await page.waitForSelector('body[data-ready="true"]');
        await page.getByRole('button', { name: 'Send a test event' }).click();
        await receiver.waitFor(1, 20_000);
        const testRow = page.locator('#delivery-log tr', { hasText: 'webhook.test' });
        await expect
          .poll(async () => (await page.reload(), testRow.textContent()), { timeout: 20_000 })
          .toContain('succeeded');
        await testRow.locator('summary').click();
        await visit(page, '', 'webhook-bodies');
        const bodies = (await testRow.locator('details').textContent()) ?? '';
        expect(bodies).toContain('A test event sent from the Presence API.');
        expect(bodies).toContain('{"received":true}');

        // Denied attempts: a passkey this tenant never enrolled.
        const stranger = new SoftwareAuthenticator({ rpId: 'localhost', origin: service.origin });
        const challenge = await sdk.presence.createChallenge({
          actionHashHex: 'ab'.repeat(32),
          purpose: 'payout',
        });
        stranger.register({ challenge: challenge.publicKey.challenge });
        const decided = await sdk.presence.verify({
          challengeId: challenge.challengeId,
          assertion: stranger.authenticate({ challenge: challenge.publicKey.challenge }) as never,
        });
        expect(decided.decision).toBe('CREDENTIAL_NOT_FOUND');
        await visit(page, '/console/denied', 'denied');
        expect(await page.locator('#denied-attempts').textContent()).toContain('CREDENTIAL_NOT_FOUND');

        // Audit log: filter to console members, download the CSV.
        await visit(page, '/console/audit', 'audit');
        await page.getByLabel('Who').selectOption('console_member');
        await page.getByRole('button', { name: 'Filter audit events' }).click();
        await visit(page, '', 'audit-filtered');
        const table = (await page.locator('#audit-log').textContent()) ?? '';
        for (const action of [
          'member.role_changed',
          'invite.cancelled',
          'member_passkey.named',
          'webhook_endpoint.updated',
        ]) {
          expect(table).toContain(action);
        }
        expect(table).not.toContain('api_key.created');
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Download CSV' }).click(),
        ]);
        const csv = readFileSync((await download.path())!, 'utf8');
        expect(csv.split('\r\n')[0]).toMatch(/^auditEventId,at,actorType/);
        expect(csv).toContain('member.role_changed');
      } finally {
        await context.close();
      }
    });

    it('refuses a passkey the console does not know, in words, naming the passkey to pick', async () => {
      const { page, context, cdp, authenticatorId } = await openWithAuthenticator(browser);
      try {
        // A discoverable passkey for localhost the console never enrolled (as the demo's would be).
        const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        await cdp.send('WebAuthn.addCredential', {
          authenticatorId,
          credential: {
            credentialId: randomBytes(16).toString('base64'),
            isResidentCredential: true,
            rpId: 'localhost',
            privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
            userHandle: randomBytes(16).toString('base64'),
            signCount: 0,
          },
        });
        await visit(page, '/console/sign-in', 'sign-in');
        await page.getByRole('button', { name: /Sign in with a passkey/ }).click();
        const status = page.locator('#sign-in-status[data-kind="error"]');
        await status.waitFor({ timeout: 25_000 });
        const text = (await status.textContent()) ?? '';
        expect(text).toContain('not a Presence console passkey');
        expect(text).toContain('Presence console — <your name>');
        await screenshots(page, 'day-one-sign-in-unknown', dialect);
      } finally {
        await context.close();
      }
    });
  },
);
