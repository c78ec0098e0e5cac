import { createHash } from 'node:crypto';
import type { Invoice, InvoiceLine, Meter } from '@presence/contract';
import { shiftLeft } from '../../domain/billing/decimal.js';
import { html, SafeHtml } from '../../html.js';

const METER_LABELS: Record<Meter, string> = {
  'challenges.created': 'Challenges issued',
  'presence.verified': 'Verified presence checks',
  'presence.denied': 'Denied presence checks',
  'receipts.exported': 'Receipts exported',
  'webhooks.delivered': 'Webhook deliveries',
};

const STYLE = `
*{box-sizing:border-box}body{margin:0;background:#f3f4f6;color:#111827;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:820px;margin:32px auto;background:#fff;padding:48px 56px;border:1px solid #e5e7eb}
header{display:flex;justify-content:space-between;gap:32px;border-bottom:2px solid #111827;padding-bottom:20px}
h1{margin:0;font-size:28px;letter-spacing:.02em}.issuer{margin:4px 0 0;color:#4b5563}
.status{display:inline-block;margin-top:10px;padding:2px 10px;border:1px solid currentColor;border-radius:999px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.06em}
.status-draft{color:#b45309}.status-open{color:#1d4ed8}.status-paid{color:#047857}.status-void{color:#6b7280}
dl{display:grid;grid-template-columns:auto auto;gap:4px 16px;margin:0}dt{color:#6b7280}dd{margin:0;text-align:right}
.draft-note{margin:20px 0 0;padding:10px 14px;background:#fffbeb;border:1px solid #f59e0b;color:#92400e}
table{width:100%;border-collapse:collapse;margin-top:28px}th,td{padding:8px 6px;text-align:left;vertical-align:top}
thead th{border-bottom:1px solid #9ca3af;font-size:12px;color:#4b5563;text-transform:uppercase;letter-spacing:.05em}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.line td{border-top:1px solid #e5e7eb;font-weight:600}tr.tier td{color:#4b5563;font-size:12.5px;padding-top:2px;padding-bottom:2px}
tr.tier td:first-child{padding-left:22px}code{font-size:11.5px;color:#6b7280;font-weight:400}
tfoot th{text-align:right;font-weight:500;color:#4b5563}tfoot td{font-weight:600}
tfoot tr.total th,tfoot tr.total td{border-top:2px solid #111827;font-size:16px;color:#111827;font-weight:700}
footer{margin-top:32px;padding-top:12px;border-top:1px solid #e5e7eb;color:#6b7280;font-size:12px}
@media print{body{background:#fff}main{margin:0;border:0;padding:0;max-width:none}@page{margin:18mm}}
@media screen and (max-width:600px){main{margin:0;padding:24px 12px;border:0}header{flex-direction:column;gap:16px}dd{overflow-wrap:anywhere}table{font-size:12.5px}thead th{font-size:11px;letter-spacing:0}th,td{padding:8px 3px}tr.tier td:first-child{padding-left:10px}}
`;

/** A constant of this file, inserted as is (CSS must not be entity-escaped); the CSP hashes exactly STYLE. */
const STYLE_ELEMENT = new SafeHtml(`<style>${STYLE}</style>`);

/** Nothing but the one inline stylesheet, identified by its hash: no script, no remote fetch. */
export const INVOICE_HTML_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const dateFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'long' });
const day = (iso: string, offsetMs = 0) => dateFormat.format(new Date(Date.parse(iso) + offsetMs));
const count = (n: number) => n.toLocaleString('en-US');

/** Minor units (an exact decimal string) in major units with digit grouping: ("123456", 2) → "1,234.56". */
function money(minor: string, exponent: number): string {
  const [whole = '0', fraction] = shiftLeft(minor, exponent).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A clean, printable, self-contained invoice document. Every value is escaped by the `html` tag. */
export function renderInvoiceHtml(invoice: Invoice, customerName: string): string {
  const title = invoice.number === null ? `Draft invoice ${invoice.period}` : `Invoice ${invoice.number}`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — ${customerName}</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          ${renderHeader(invoice, customerName)}
          ${invoice.status === 'draft' ? html`<p class="draft-note">Not final: usage so far, as of ${invoice.computedAt}. The invoice is finalized after the period closes.</p>` : ''}
          ${renderTable(invoice)}
          <footer>
            <p>
              Amounts in ${invoice.currency}. Unit prices are exact; each line sums its tiers exactly and is
              rounded half-up to the smallest currency unit once. Periods are calendar months in UTC.
            </p>
            ${invoice.note === null ? '' : html`<p>Note: ${invoice.note}</p>`}
            <p>Invoice id <code>${invoice.invoiceId}</code></p>
          </footer>
        </main>
      </body>
    </html> `.toString();
}

function renderHeader(invoice: Invoice, customerName: string): SafeHtml {
  const optional = (label: string, iso: string | null) =>
    iso === null
      ? ''
      : html`<dt>${label}</dt>
          <dd>${day(iso)}</dd>`;
  return html`<header>
    <div>
      <h1>${invoice.status === 'draft' ? 'Draft invoice' : 'Invoice'}</h1>
      <p class="issuer">Presence — usage for ${invoice.period}</p>
      <span class="status status-${invoice.status}">${invoice.status}</span>
    </div>
    <dl>
      <dt>Number</dt>
      <dd>${invoice.number ?? 'assigned when finalized'}</dd>
      <dt>Customer</dt>
      <dd>${customerName}<br /><code>${invoice.tenantId}</code></dd>
      <dt>Period (UTC)</dt>
      <dd>${day(invoice.periodStart)} – ${day(invoice.periodEnd, -1)}</dd>
      <dt>${invoice.issuedAt === null ? 'Computed' : 'Issued'}</dt>
      <dd>${day(invoice.issuedAt ?? invoice.computedAt)}</dd>
      ${optional('Paid', invoice.paidAt)} ${optional('Voided', invoice.voidedAt)}
      <dt>Plan</dt>
      <dd>${invoice.planName}</dd>
    </dl>
  </header>`;
}

function renderTable(invoice: Invoice): SafeHtml {
  const amount = (minor: number | string) =>
    `${invoice.currency} ${money(String(minor), invoice.currencyExponent)}`;
  return html`<table>
    <thead>
      <tr>
        <th>Item</th>
        <th class="num">Quantity</th>
        <th class="num">Unit price</th>
        <th class="num">Amount</th>
      </tr>
    </thead>
    <tbody>
      ${invoice.lines.map((line) => renderLine(line, invoice, amount))}
    </tbody>
    <tfoot>
      <tr>
        <th colspan="3">Subtotal</th>
        <td class="num">${amount(invoice.subtotalMinor)}</td>
      </tr>
      <tr class="total">
        <th colspan="3">Total</th>
        <td class="num">${amount(invoice.totalMinor)}</td>
      </tr>
    </tfoot>
  </table>`;
}

function renderLine(
  line: InvoiceLine,
  invoice: Invoice,
  amount: (minor: number | string) => string,
): SafeHtml {
  const unit = (price: string) => `${invoice.currency} ${money(price, invoice.currencyExponent)}`;
  const unitPrice =
    line.tiers.length === 0
      ? 'not charged'
      : line.unitPriceMinor === null
        ? 'graduated'
        : unit(line.unitPriceMinor);
  return html`<tr class="line">
      <td>${METER_LABELS[line.meter]}<br /><code>${line.meter}</code></td>
      <td class="num">${count(line.quantity)}</td>
      <td class="num">${unitPrice}</td>
      <td class="num">${amount(line.amountMinor)}</td>
    </tr>
    ${line.tiers.map(
      (t) =>
        html`<tr class="tier">
          <td>
            units ${count(t.fromUnit)} –
            ${t.toUnit === null ? '∞' : count(t.toUnit)}${t.included ? ' (included)' : ''}
          </td>
          <td class="num">${count(t.quantity)}</td>
          <td class="num">${unit(t.unitPriceMinor)}</td>
          <td class="num">${amount(t.amountMinorExact)}</td>
        </tr>`,
    )}`;
}
