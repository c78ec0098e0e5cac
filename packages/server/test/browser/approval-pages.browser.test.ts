/**
 * The hosted approval and enrollment pages in real Chromium, on SQLite and PostgreSQL: every
 * person has their own browser context with its own virtual authenticator (docs/api-contract.md#13-approvals).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/each-dialect.js';
import { startLinkPagesService, type LinkPagesService } from './approval-pages-harness.js';
import {
  chromiumMissing,
  launchChromium,
  openWithAuthenticator,
  type AuthenticatorPage,
} from './browser-harness.js';
import { screenshots, seriousViolations } from './console-harness.js';

const PEOPLE = ['alice', 'bob', 'carol', 'ivan'] as const;
type Person = (typeof PEOPLE)[number];

const noChromium = chromiumMissing();

describeEachDialect('approval pages', (dialect) => {
  describe.skipIf(noChromium)('in Chromium', () => {
    let s: LinkPagesService;
    let browser: Browser;
    const people = {} as Record<Person, AuthenticatorPage>;

    beforeAll(async () => {
      s = await startLinkPagesService(dialect);
      browser = await launchChromium();
      for (const p of PEOPLE) people[p] = await openWithAuthenticator(browser);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await s?.close();
    });

    async function create(body: Record<string, unknown>) {
      const created = await s.api('POST', '/v1/approvals', body);
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      return created.json as { approvalId: string; approvalUrl: string; bindingCode: string };
    }

    async function decide(who: Person, url: string, button: string, expected: RegExp) {
      const { page, log } = people[who];
      await page.goto(url);
      await page.getByRole('button', { name: button }).click();
      await expect
        .poll(() => page.locator('#progress').textContent(), { timeout: 20_000, message: log.join('\n') })
        .toMatch(expected);
    }

    it('enrolls a passkey by link for each person; the used link shows no button', async () => {
      for (const subject of PEOPLE) {
        const link = await s.api('POST', '/v1/presence/enrollment-links', {
          subject,
          displayName: `${subject} (ops)`,
        });
        expect(link.status).toBe(201);
        const { page, log } = people[subject];
        const response = await page.goto(link.json.enrollmentUrl);
        expect(response!.status()).toBe(200);
        expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Enroll a passkey');
        expect(await page.locator('main').textContent()).toContain(`${subject} (ops)`);
        if (subject === 'alice') {
          expect(await seriousViolations(page)).toEqual([]);
          await screenshots(page, 'enroll-pending', dialect);
        }
        await page.getByRole('button', { name: 'Enroll a passkey' }).click();
        await expect
          .poll(() => page.locator('#progress').textContent(), { timeout: 20_000, message: log.join('\n') })
          .toMatch(/Your passkey is enrolled/);
        expect(await page.getByRole('button', { name: 'Enroll a passkey' }).count()).toBe(0);
        expect(await page.locator('h2#status-h').textContent()).toMatch(/used or has expired/);
      }
    }, 120_000);

    it('2 of 3 with an initiator: the initiator and a second decision are refused, two approvers approve', async () => {
      const approval = await create({
        action: {
          type: 'payout',
          amount: 125000,
          currency: 'EUR',
          payee: { iban: 'DE89370400440532013000', name: 'ACME GmbH' },
          items: [{ sku: 'A-1' }],
        },
        approvers: ['alice', 'bob', 'carol'],
        required: 2,
        initiator: 'ivan',
        title: 'Pay ACME GmbH 1,250.00 EUR',
      });
      const alice = people.alice.page;
      await alice.goto(approval.approvalUrl);
      expect(await alice.locator('.binding-code').textContent()).toBe(approval.bindingCode);
      // The canonical form's order (RFC 8785 sorts keys), so the table reads like the signed text.
      expect(await alice.locator('table.action tbody th').allTextContents()).toEqual([
        'amount',
        'currency',
        'items[0].sku',
        'payee.iban',
        'payee.name',
        'type',
      ]);
      expect(await alice.locator('#status-h').textContent()).toMatch(/0 of 2 approvals given/);
      expect(await seriousViolations(alice)).toEqual([]);
      await screenshots(alice, 'approve-pending', dialect);
      // The page's own script runs under its CSP: the expiry counts down, nothing was blocked.
      await expect.poll(() => alice.locator('#countdown').textContent()).toMatch(/^\(in 1[45] min \d+ s\)$/);
      expect(people.alice.log.filter((l) => /Content Security Policy|pageerror/.test(l))).toEqual([]);

      await decide(
        'ivan',
        approval.approvalUrl,
        'Approve with passkey',
        /No passkey of an approver who has not decided/,
      );
      await decide('alice', approval.approvalUrl, 'Approve with passkey', /Your approval was recorded/);
      expect(await alice.locator('#status-h').textContent()).toMatch(/1 of 2 approvals given/);
      await decide(
        'alice',
        approval.approvalUrl,
        'Approve with passkey',
        /No passkey of an approver who has not decided/,
      );
      await decide('bob', approval.approvalUrl, 'Approve with passkey', /Your approval was recorded/);
      expect(await people.bob.page.locator('#status-h').textContent()).toBe('Approved');

      const got = await s.api('GET', `/v1/approvals/${approval.approvalId}`);
      expect(got.json.status).toBe('approved');
      expect(
        got.json.approvers.filter((a: any) => a.decision === 'approved').map((a: any) => a.subject),
      ).toEqual(['alice', 'bob']);
      expect(got.json.approvalSet.approvalSet.approvals).toHaveLength(2);

      // Opened after the end: the final state, no buttons.
      const carol = people.carol.page;
      await carol.goto(approval.approvalUrl);
      expect(await carol.locator('#status-h').textContent()).toBe('Approved');
      expect(await carol.getByRole('button').count()).toBe(0);
      expect(await carol.locator('.approvers').textContent()).toMatch(/carol: not decided yet/);
      await screenshots(carol, 'approve-approved', dialect);
    }, 120_000);

    it('a rejection with a passkey ends the approval as rejected', async () => {
      const approval = await create({
        action: { type: 'delete', db: 'prod' },
        approvers: ['alice', 'bob'],
        required: 2,
      });
      await decide('carol', approval.approvalUrl, 'Reject with passkey', /No passkey of an approver/);
      await decide('alice', approval.approvalUrl, 'Reject with passkey', /Your rejection was recorded/);
      expect(await people.alice.page.locator('#status-h').textContent()).toBe('Rejected');
      expect(await people.alice.page.getByRole('button').count()).toBe(0);
      expect((await s.api('GET', `/v1/approvals/${approval.approvalId}`)).json.status).toBe('rejected');
    }, 60_000);

    it('expired and cancelled approvals show their final state and no buttons', async () => {
      const expiring = await create({
        action: { type: 'deploy', ref: 'v1' },
        approvers: ['alice'],
        expiresInSeconds: 60,
      });
      const cancelled = await create({ action: { type: 'deploy', ref: 'v2' }, approvers: ['alice'] });
      expect((await s.api('POST', `/v1/approvals/${cancelled.approvalId}/cancel`)).status).toBe(200);
      const page = people.alice.page;
      await page.goto(cancelled.approvalUrl);
      expect(await page.locator('#status-h').textContent()).toBe('Cancelled');
      expect(await page.getByRole('button').count()).toBe(0);
      s.clock.advance(61);
      try {
        await page.goto(expiring.approvalUrl);
        expect(await page.locator('#status-h').textContent()).toBe('Expired');
        expect(await page.getByRole('button').count()).toBe(0);
      } finally {
        s.clock.advance(-61);
      }
    }, 60_000);

    it('markup, bidi controls and look-alike letters in the action are shown as text, marked and flagged', async () => {
      const approval = await create({
        action: {
          note: '<script>document.title="owned"</script><style>body{display:none}</style><b>bold</b>',
          file: 'invoice\u202Efdp.exe',
          payee: { name: 'p\u0430ypal', memo: 'zero\u200Bwidth' },
          long: 'X'.repeat(600),
        },
        approvers: ['alice'],
        title: 'Markup <i>in</i> the title',
      });
      const page = people.alice.page;
      await page.goto(approval.approvalUrl);
      const labels = await page.locator('table.action tbody th').allTextContents();
      const values = await page.locator('table.action tbody td').allTextContents();
      const cell = (label: string) => values[labels.indexOf(label)];
      expect(labels).toEqual(['file', 'long', 'note', 'payee.memo', 'payee.name']);
      expect(cell('note')).toBe(
        '<script>document.title="owned"</script><style>body{display:none}</style><b>bold</b>',
      );
      expect(await page.title()).toBe('Markup <i>in</i> the title · Presence');
      expect(await page.locator('main script, main style, main b, h1 i').count()).toBe(0);
      expect(await page.locator('body').isVisible()).toBe(true);
      expect(await page.locator('table.action .mark [aria-hidden]').allTextContents()).toEqual([
        '⟨U+202E⟩',
        '⟨U+200B⟩',
      ]);
      expect(await page.locator('pre.canonical').textContent()).toContain('invoice⟨U+202E⟩');
      const warning = await page.locator('.warning').textContent();
      expect(warning).toMatch(/2 hidden or direction-changing\s+characters/);
      expect(warning).toContain('p\u0430ypal');
      expect(cell('long')).toBe('X'.repeat(600));
      expect(cell('payee.name')).toMatch(/look-alike letters/);
      await screenshots(page, 'approve-bidi-markup', dialect);
    }, 60_000);

    it('an unknown or malformed token gets a friendly HTML 404 page', async () => {
      const page = people.alice.page;
      for (const path of [
        '/approve/' + 'A'.repeat(43),
        '/enroll/' + 'A'.repeat(43),
        '/approve/%3Cscript%3E',
        '/enroll/x',
      ]) {
        const response = await page.goto(s.origin + path);
        expect(response!.status(), path).toBe(404);
        expect(response!.headers()['content-type']).toMatch(/^text\/html/);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/link is not valid/);
      }
    }, 30_000);
  });
});
