/**
 * A dangerous console change approved by two owners, in Chromium on SQLite and PostgreSQL, each
 * owner in its own browser context with its own DevTools virtual authenticator: the first owner
 * requires 2 approvers and asks for a policy change (seeing its before and after while the passkey
 * is asked); the second opens the approval link, sees the tenant's name and the before and after,
 * and approves with a passkey; the first applies it; the policy is in force and its audit event
 * names the approval. Pages are checked with axe-core and screenshotted at 1280 and 390 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvite } from '../../src/domain/console/create-invite.js';
import { DIALECTS, pgAvailable } from '../../src/storage/testing.js';
import {
  chromiumMissing,
  launchChromium,
  openWithAuthenticator,
  type AuthenticatorPage,
} from './browser-harness.js';
import {
  screenshots,
  seriousViolations,
  startConsoleService,
  type ConsoleService,
} from './console-harness.js';

const postgresReady = await pgAvailable();

for (const dialect of DIALECTS) {
  describe.skipIf(chromiumMissing() || (dialect === 'postgres' && !postgresReady))(
    `a console change approved by two owners in Chromium (${dialect})`,
    () => {
      let service: ConsoleService;
      let browser: Browser;
      beforeAll(async () => {
        service = await startConsoleService(dialect);
        browser = await launchChromium();
      }, 60_000);
      afterAll(async () => {
        await browser?.close();
        await service?.close();
      });

      async function check(page: Page, name: string): Promise<void> {
        const violations = await seriousViolations(page);
        expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
        await screenshots(page, `approvers-${name}`, dialect);
      }
      async function flash(page: Page): Promise<string> {
        const box = page.locator('#flash[data-kind="ok"], #flash[data-kind="error"]');
        await box.waitFor({ timeout: 25_000 });
        return `${await box.getAttribute('data-kind')}: ${await box.textContent()}`;
      }
      async function join(person: AuthenticatorPage, name: string): Promise<void> {
        const settings = await service.composed.consoleSettings();
        const { inviteUrl } = await createInvite(service.composed.deps, settings, {
          tenantId: service.devTenantId,
          role: 'owner',
          createdBy: null,
        });
        await person.page.goto(inviteUrl);
        await person.page.getByLabel('Your name').fill(name);
        await person.page.getByRole('button', { name: 'Create a passkey and join' }).click();
        await person.page.waitForURL(`${service.origin}/console`, { timeout: 25_000 });
      }

      it('an owner requires two approvers; a policy change waits for the second owner, then applies once', async () => {
        const dana = await openWithAuthenticator(browser);
        const eli = await openWithAuthenticator(browser);
        const log = () => [...dana.log, ...eli.log].join('\n');
        try {
          await join(dana, 'Dana');
          await join(eli, 'Eli');

          // 1. Dana requires 2 approvers (today 1: her passkey alone approves it).
          const page = dana.page;
          await page.goto(`${service.origin}/console/members`);
          await page.waitForSelector('body[data-ready="true"]');
          await page.getByLabel('Approvers required').selectOption('2');
          await page.getByRole('button', { name: 'Change the approvers required' }).click();
          expect(await flash(page), log()).toMatch(/^ok: .*now need 2 approvers/);
          await page.waitForTimeout(1600); // the page reloads itself after a change
          await page.goto(`${service.origin}/console/members`);
          await page.waitForSelector('body[data-ready="true"]');
          expect(await page.locator('#approvers-required').textContent()).toBe('2 approvers');
          await check(page, 'members');

          // 2. Dana asks for a policy change: her passkey is the first approval.
          await page.goto(`${service.origin}/console/policy`);
          await page.waitForSelector('body[data-ready="true"]');
          const editor = page.locator('#policy-json');
          const body = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
          await editor.fill(JSON.stringify({ ...body, rpName: 'Approved by two owners' }, null, 2));
          await page.getByRole('button', { name: 'Approve and save a new policy version' }).click();
          expect(await flash(page), log()).toMatch(/^ok: .*Your approval is the first of 2.*Eli/);
          const before = await service.composed.deps.store.policies.current(service.devTenantId);
          expect(before!.rules.rpName).not.toBe('Approved by two owners');

          await page.goto(`${service.origin}/console/changes`);
          await page.waitForSelector('body[data-ready="true"]');
          const listed = (await page.locator('ul.changes').first().textContent()) ?? '';
          expect(listed).toContain('policy.change on policy');
          expect(listed).toContain('Approved by two owners');
          expect(await page.getByRole('button', { name: /^Apply change/ }).count()).toBe(0);
          await check(page, 'changes-pending');
          const approvalUrl = (await page.locator('code[id^="link-chg_"]').textContent())!.trim();

          // 3. Eli opens the link in his own browser: the tenant, the before and the after.
          await eli.page.goto(approvalUrl);
          const shown = (await eli.page.locator('body').textContent()) ?? '';
          expect(shown).toContain('development (Presence console)');
          expect(shown).toContain('before.rpName');
          expect(shown).toContain('after.rpName');
          expect(shown).toContain('Approved by two owners');
          await check(eli.page, 'approval-page');
          await eli.page.getByRole('button', { name: 'Approve with passkey' }).click();
          await expect
            .poll(() => eli.page.locator('#progress').textContent(), { timeout: 20_000, message: log() })
            .toMatch(/Your approval was recorded/);

          // 4. Dana applies it; the policy is in force; its audit event links the approval.
          await page.goto(`${service.origin}/console/changes`);
          await page.waitForSelector('body[data-ready="true"]');
          await page.getByRole('button', { name: /^Apply change/ }).click();
          await page.waitForURL(`${service.origin}/console/policy`, { timeout: 25_000 });
          expect(await page.locator('#policy-current').textContent()).toContain('Approved by two owners');
          const store = service.composed.deps.store;
          const [change] = await store.console.changes.list(service.devTenantId, 1);
          expect(change!.status).toBe('applied');
          const [event] = await store.auditEvents.list(
            service.devTenantId,
            { action: 'policy.changed' },
            { limit: 1 },
          );
          expect(event!.approvalId).toBe(change!.approvalId);
          expect(event!.actor.name).toBe('Dana');
          const approval = await store.approvals.approvals.get(
            (await service.composed.consoleSettings()).consoleTenantId,
            change!.approvalId,
          );
          expect(approval!.status).toBe('approved');
          await page.goto(`${service.origin}/console/changes`);
          await page.waitForSelector('body[data-ready="true"]');
          await check(page, 'changes-applied');
          await page.goto(`${service.origin}/console/audit?action=policy.changed`);
          await page.waitForSelector('body[data-ready="true"]');
          expect(await page.locator('#audit-log tbody tr').first().textContent()).toMatch(
            new RegExp(`approval\\s+${change!.approvalId}`),
          );
        } catch (error) {
          throw new Error(`${String(error)}\nat ${dana.page.url()}\n${log()}`, { cause: error });
        } finally {
          await dana.context.close();
          await eli.context.close();
        }
      }, 300_000);
    },
  );
}
