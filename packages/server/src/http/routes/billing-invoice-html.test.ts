import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { draftInvoiceView } from '../../domain/billing/invoice-view.js';
import { parsePeriod } from '../../domain/billing/billing-period.js';
import { INVOICE_HTML_CSP, renderInvoiceHtml } from './billing-invoice-html.js';

const plan = {
  name: '<img src=x onerror=alert(1)>',
  currency: 'JPY',
  currencyExponent: 0,
  monthlyChallengeQuota: null,
  meters: { 'presence.verified': { included: 1, tiers: [{ upTo: null, unitPriceMinor: '1234.5' }] } },
};
const quantities = {
  'challenges.created': 0,
  'presence.verified': 3,
  'presence.denied': 0,
  'receipts.exported': 0,
  'webhooks.delivered': 0,
};

describe('the printable invoice', () => {
  const invoice = draftInvoiceView('ten_X', parsePeriod('2030-02')!, plan, quantities, Date.UTC(2030, 1, 10));
  const page = renderInvoiceHtml(invoice, '"Quote" & <script>alert(1)</script>');

  it('escapes every value and carries no script', () => {
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&quot;Quote&quot; &amp; &lt;script&gt;');
    expect(page).toContain('1 February 2030 – 28 February 2030');
  });

  it('formats money in major units with the currency exponent', () => {
    // 2 billable units × 1234.5 = 2469 yen; no fraction digits in JPY.
    expect(page).toContain('JPY 2,469</td>');
    expect(page).toContain('JPY 1,234.5</td>');
  });

  it('allows exactly its own stylesheet through the CSP hash', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(INVOICE_HTML_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(INVOICE_HTML_CSP).toContain("default-src 'none'");
  });
});
