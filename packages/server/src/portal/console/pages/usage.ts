import { GRANULARITIES, InvoiceParams, METERS, type Invoice } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { bucketStart } from '../../../domain/billing/billing-period.js';
import { getUsage } from '../../../domain/billing/get-usage.js';
import { getInvoiceDocument, listInvoices } from '../../../domain/billing/list-invoices.js';
import { INVOICE_HTML_CSP, renderInvoiceHtml } from '../../../http/routes/billing-invoice-html.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { consoleRequest, memberOf } from '../console-context.js';
import { page, type View } from '../routes.js';
import { barChart } from '../svg-chart.js';
import { badge, empty } from '../widgets.js';

const UsageQuery = Type.Object(
  {
    granularity: Type.Optional(Type.Union(GRANULARITIES.map((g) => Type.Literal(g)))),
    meter: Type.Optional(Type.Union(METERS.map((m) => Type.Literal(m)))),
  },
  { additionalProperties: false },
);

const SPAN = { hour: 48, day: 30, month: 12 } as const;
const STEP = { hour: 3600_000, day: 86_400_000 } as const;

/** Exact minor units as a major-unit string: ("123456", 2) → "1234.56". */
function money(minor: string, exponent: number): string {
  if (exponent === 0) return minor;
  const padded = minor.padStart(exponent + 1, '0');
  return `${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
}

function rangeOf(granularity: keyof typeof SPAN, now: number): { from: number; to: number } {
  if (granularity === 'month') {
    const d = new Date(bucketStart('month', now));
    return {
      from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 11, 1),
      to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    };
  }
  const to = bucketStart(granularity, now) + STEP[granularity];
  return { from: to - SPAN[granularity] * STEP[granularity], to };
}

function invoiceRow(i: Invoice): SafeHtml {
  return html`<tr>
    <th scope="row"><a href="/console/invoices/${i.invoiceId}">${i.number ?? `Draft ${i.period}`}</a></th>
    <td data-label="Period">${i.period}</td>
    <td data-label="Status">
      ${badge(i.status, i.status === 'paid' ? 'ok' : i.status === 'void' ? 'bad' : 'plain')}
    </td>
    <td data-label="Total" class="num">${money(String(i.totalMinor), i.currencyExponent)} ${i.currency}</td>
  </tr>`;
}

async function usageBody(view: View, granularity: keyof typeof SPAN, meter: (typeof METERS)[number]) {
  const { deps } = view.ctx;
  const { from, to } = rangeOf(granularity, deps.clock.now());
  const usage = await getUsage(deps, view.tenantId, {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    granularity,
  });
  const invoices = await listInvoices(deps, view.tenantId, {}, { limit: 24 });
  const label = (s: string) =>
    granularity === 'hour' ? s.slice(11, 16) : granularity === 'day' ? s.slice(5, 10) : s.slice(0, 7);
  return html`<section class="card wide" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <form method="get" action="/console/usage" class="search">
        <label
          >Meter
          <select name="meter">
            ${METERS.map((m) => html`<option value="${m}" ${m === meter ? html`selected` : ''}>${m}</option>`)}
          </select></label
        >
        <label
          >Granularity
          <select name="granularity">
            ${GRANULARITIES.map((g) => html`<option value="${g}" ${g === granularity ? html`selected` : ''}>${g}</option>`)}
          </select></label
        >
        <button type="submit">Show usage</button>
      </form>
      ${barChart({ title: `${meter} per ${granularity}`, labels: usage.series.map((s) => label(s.start)), series: [{ label: meter, className: 'verified', values: usage.series.map((s) => s.totals[meter]) }] })}
      <table class="totals">
        <caption>
          Totals from ${usage.from.slice(0, 10)} to ${usage.to.slice(0, 10)}
        </caption>
        <tbody>
          ${METERS.map(
            (m) =>
              html`<tr>
                <th scope="row">${m}</th>
                <td class="num">${usage.totals[m]}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section class="card wide" aria-labelledby="invoices-title">
      <h2 id="invoices-title">Invoices</h2>
      ${
        invoices.items.length === 0
          ? empty('No invoices yet.')
          : html`<div class="table-wrap">
              <table class="stack" id="invoices">
                <thead>
                  <tr>
                    <th scope="col">Invoice</th>
                    <th scope="col">Period</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Total</th>
                  </tr>
                </thead>
                <tbody>
                  ${invoices.items.map(invoiceRow)}
                </tbody>
              </table>
            </div>`
      }
    </section>`;
}

export function usagePages(app: App): void {
  page(app, '/console/usage', { querystring: UsageQuery }, async ({ view, query }) => ({
    title: 'Usage and invoices',
    nav: '/console/usage',
    body: await usageBody(view, query.granularity ?? 'day', query.meter ?? 'challenges.created'),
  }));

  // The printable invoice document itself, under its own strict CSP (one hashed stylesheet, no script).
  app.get(
    '/console/invoices/:invoiceId',
    { schema: { hide: true, params: InvoiceParams } },
    async (request, reply) => {
      if (!consoleRequest(request).signedIn) return reply.redirect('/console/sign-in', 303);
      const { member } = memberOf(request);
      const { invoice, customerName } = await getInvoiceDocument(
        consoleRequest(request).ctx.deps,
        member.tenantId,
        request.params.invoiceId,
      );
      return reply
        .header('content-security-policy', INVOICE_HTML_CSP)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(renderInvoiceHtml(invoice, customerName));
    },
  );
}
