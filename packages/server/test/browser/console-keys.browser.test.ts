/**
 * Creating a powerful API key in the console, in Chromium with a DevTools virtual authenticator,
 * on SQLite and PostgreSQL: a preset fills the scopes, a key with `policy:write` is refused while
 * the passkey does not verify the user and nothing is stored, then created once the passkey
 * approves it, its secret shown once; a key without a powerful scope is created by the plain form.
 * An invite link, and a second device's passkey for the member, are likewise made only after the
 * passkey approves them. The key and member pages
 * are checked with axe-core and screenshotted at 1280 and 390 px.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createInvite } from '../../src/domain/console/create-invite.js';
import { openWithAuthenticator } from './browser-harness.js';
import { screenshots, seriousViolations, describeConsoleInChromium, flash } from './console-harness.js';

describeConsoleInChromium(
  (dialect) => `console key creation through the passkey gate in Chromium (${dialect})`,
  ({ service, browser, dialect }) => {
    const keys = async () =>
      (await service.composed.deps.store.apiKeys.list(service.devTenantId, { limit: 100 })).filter(
        (k) => k.name === 'policy robot',
      );
    async function keyPage(page: Page): Promise<void> {
      await page.goto(`${service.origin}/console/keys`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
    }

    it('creates a policy:write key only after the passkey approves it', async () => {
      const { page, context, cdp, authenticatorId, log } = await openWithAuthenticator(browser);
      const settings = await service.composed.consoleSettings();
      try {
        const { inviteUrl } = await createInvite(service.composed.deps, settings, {
          tenantId: service.devTenantId,
          role: 'admin',
          createdBy: null,
        });
        await page.goto(inviteUrl);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
        await page.getByLabel('Your name').fill('Grace Admin');
        await page.getByRole('button', { name: 'Create a passkey and join' }).click();
        await page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });

        // A preset checks exactly its scopes.
        await keyPage(page);
        await page.getByRole('button', { name: 'Auditor' }).click();
        const checked = await page
          .locator('input[name="scopes"]:checked')
          .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
        expect(checked.sort()).toEqual(
          ['audit:read', 'billing:read', 'policy:read', 'receipts:export', 'receipts:read'].sort(),
        );
        expect(await seriousViolations(page), log.join('\n')).toEqual([]);
        await screenshots(page, 'keys-create-form', dialect);

        // Denied user verification: refused, nothing stored.
        await page.getByLabel('Name').fill('policy robot');
        await page.getByRole('checkbox', { name: /policy:write/ }).check();
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
        await page.getByRole('button', { name: 'Create API key' }).click();
        expect(await flash(page)).toMatch(/^error: Refused: /);
        expect(await keys()).toHaveLength(0);

        // Approved: created, the secret shown once.
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
        await page.getByRole('button', { name: 'Create API key' }).click();
        expect(await flash(page)).toMatch(/^ok: Done: API key policy robot .* was created with /);
        const secret = (await page.locator('#approval-secret').textContent()) ?? '';
        expect(secret).toMatch(/^presence_/);
        expect((await keys()).map((k) => [...k.scopes].sort())).toEqual([
          ['audit:read', 'billing:read', 'policy:read', 'policy:write', 'receipts:export', 'receipts:read'],
        ]);
        const policy = await fetch(`${service.origin}/v1/policy`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(policy.status).toBe(200);
        await screenshots(page, 'keys-created-with-passkey', dialect);

        // Without a powerful scope the plain form creates the key, no passkey asked.
        await keyPage(page);
        await page.getByLabel('Name').fill('reader');
        await page.getByRole('checkbox', { name: /receipts:read/ }).check();
        await page.getByRole('button', { name: 'Create API key' }).click();
        expect(await page.locator('#secret-value').textContent()).toMatch(/^presence_/);
        await page.waitForSelector('body[data-ready="true"]');
        expect(await seriousViolations(page)).toEqual([]);
        await screenshots(page, 'keys-list', dialect);

        // Grace demoted to developer keeps the key she saw: the Keys page flags it, for rotation or revocation.
        const store = service.composed.deps.store;
        const grace = (await store.console.members.list(service.devTenantId)).find(
          (m) => m.displayName === 'Grace Admin',
        )!;
        expect(await store.console.members.setRole(service.devTenantId, grace.id, 'admin', 'developer')).toBe(
          true,
        );
        await keyPage(page);
        await expect
          .poll(() => page.locator('main').textContent())
          .toContain('created by Grace Admin, now developer: holds policy:write');
        expect(await seriousViolations(page)).toEqual([]);
        await screenshots(page, 'keys-flagged', dialect);
      } catch (error) {
        throw new Error(`${String(error)}\nat ${page.url()}\n${log.join('\n')}`, { cause: error });
      } finally {
        await context.close();
      }
    }, 180_000);

    it('creates an invite link, and adds a passkey, only after the passkey approves it', async () => {
      const { page, context, cdp, authenticatorId, log } = await openWithAuthenticator(browser);
      const deps = service.composed.deps;
      const settings = await service.composed.consoleSettings();
      const memberInvites = async () =>
        (await deps.store.console.invites.listOpen(service.devTenantId, Date.now())).filter(
          (i) => i.createdBy !== null,
        );
      try {
        const { inviteUrl } = await createInvite(deps, settings, {
          tenantId: service.devTenantId,
          role: 'owner',
          createdBy: null,
        });
        await page.goto(inviteUrl);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
        await page.getByLabel('Your name').fill('Olive Owner');
        await page.getByRole('button', { name: 'Create a passkey and join' }).click();
        await page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });
        await page.goto(`${service.origin}/console/members`);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
        await page.getByLabel('Role of the new member').selectOption('admin');
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
        await page.getByRole('button', { name: 'Create an invite link' }).click();
        expect(await flash(page)).toMatch(/^error: Refused: /);
        expect(await memberInvites()).toHaveLength(0);

        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
        await page.getByRole('button', { name: 'Create an invite link' }).click();
        expect(await flash(page)).toMatch(/^ok: Done: Invite link for a new admin/);
        expect(await page.locator('#approval-secret').textContent()).toContain('/console/invite/');
        expect((await memberInvites()).map((i) => i.role)).toEqual(['admin']);
        expect(await seriousViolations(page)).toEqual([]);
        await screenshots(page, 'members-invite-created', dialect);

        // A second device's passkey: the passkey already held approves it, then the new one is made.
        const second = await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: {
            protocol: 'ctap2',
            transport: 'usb',
            hasResidentKey: true,
            hasUserVerification: true,
            isUserVerified: true,
            automaticPresenceSimulation: true,
          },
        });
        await page.getByRole('button', { name: 'Add a passkey on this device' }).click();
        const status = page.locator('#passkey-status[data-kind="ok"], #passkey-status[data-kind="error"]');
        await status.waitFor({ timeout: 25_000 });
        expect(await status.textContent()).toBe('Passkey added.');
        const held = await cdp.send('WebAuthn.getCredentials', { authenticatorId: second.authenticatorId });
        expect(held.credentials).toHaveLength(1);
        const audit = await deps.store.auditEvents.list(service.devTenantId, {}, { limit: 50 });
        expect(audit.find((a) => a.action === 'member_passkey.add_started')?.receiptId).toMatch(/^rct_/);
      } catch (error) {
        throw new Error(`${String(error)}\nat ${page.url()}\n${log.join('\n')}`, { cause: error });
      } finally {
        await context.close();
      }
    }, 180_000);
  },
);
