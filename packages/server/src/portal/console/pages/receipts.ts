import { ReceiptParams, type ReceiptListItem } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { requirePermission } from '../../../domain/console/permissions.js';
import { startExport } from '../../../domain/exports/start-export.js';
import { checkReceipt } from '../../../domain/receipts/check-receipt.js';
import { getReceipt } from '../../../domain/receipts/get-receipt.js';
import { listReceipts } from '../../../domain/receipts/list-receipts.js';
import { sendExportPack } from '../../../http/send-export-pack.js';
import type { App } from '../../../http/types.js';
import { UTC_MINUTE } from '../../../http/validators.js';
import { html, type SafeHtml } from '../../html.js';
import { consoleRequest, memberOf } from '../console-context.js';
import { page, type View } from '../routes.js';
import { badge, empty, when } from '../widgets.js';

/** The browser's datetime-local value, read as UTC; a real minute (`2026-02-30T25:61` is a 400). */
const LocalTime = Type.String({ format: UTC_MINUTE });
const SearchQuery = Type.Object(
  {
    from: Type.Optional(Type.Union([LocalTime, Type.Literal('')])),
    to: Type.Optional(Type.Union([LocalTime, Type.Literal('')])),
    subject: Type.Optional(Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9._:@/+=-]*$' })),
    actionHashHex: Type.Optional(Type.String({ pattern: '^([0-9a-f]{64})?$' })),
    credentialId: Type.Optional(Type.String({ maxLength: 1400, pattern: '^[A-Za-z0-9_-]*$' })),
  },
  { additionalProperties: false },
);
const ExportQuery = Type.Object({ from: LocalTime, to: LocalTime }, { additionalProperties: false });

const iso = (local: string | undefined) => (local ? `${local}:00.000Z` : undefined);
const orUndefined = (value: string | undefined) => (value ? value : undefined);

function searchForm(q: Record<string, string | undefined>): SafeHtml {
  return html`<section class="card wide" aria-labelledby="search-title">
    <h2 id="search-title">Search</h2>
    <form method="get" action="/console/receipts" class="search">
      <label>From (UTC) <input type="datetime-local" name="from" value="${q['from'] ?? ''}" /></label>
      <label>To (UTC) <input type="datetime-local" name="to" value="${q['to'] ?? ''}" /></label>
      <label>Subject <input name="subject" value="${q['subject'] ?? ''}" /></label>
      <label>Action hash <input name="actionHashHex" value="${q['actionHashHex'] ?? ''}" /></label>
      <label>Credential <input name="credentialId" value="${q['credentialId'] ?? ''}" /></label>
      <button type="submit">Search receipts</button>
    </form>
  </section>`;
}

function exportForm(q: Record<string, string | undefined>, now: number): SafeHtml {
  const day = 86_400_000;
  const exportFrom = q['from'] || new Date(now - 30 * day).toISOString().slice(0, 16);
  const exportTo = q['to'] || new Date(now + 60_000).toISOString().slice(0, 16);
  return html`<section class="card wide" aria-labelledby="export-title">
    <h2 id="export-title">Export a signed pack</h2>
    <p class="muted">
      Every receipt issued in the range, with what an auditor needs to check them offline (<code
        >presence-verify pack.zip --keys keys.json</code
      >).
    </p>
    <form method="get" action="/console/receipts/export" class="search" data-export>
      <label>From (UTC) <input type="datetime-local" name="from" value="${exportFrom}" required /></label>
      <label>To (UTC) <input type="datetime-local" name="to" value="${exportTo}" required /></label>
      <button type="submit" class="secondary">Export a signed pack</button>
    </form>
    <p id="export-status" class="status" role="status" aria-live="polite"></p>
    <p id="export-link" hidden></p>
  </section>`;
}

function receiptRow(item: ReceiptListItem): SafeHtml {
  const r = item.receipt;
  return html`<tr>
    <th scope="row"><a href="/console/receipts/${r.receiptId}">${r.receiptId}</a></th>
    <td data-label="Issued">${when(r.issuedAt)}</td>
    <td data-label="Subject"><code>${r.subject}</code></td>
    <td data-label="Action hash"><code class="hash">${r.actionHashHex.slice(0, 16)}…</code></td>
    <td data-label="Purpose">${r.purpose ?? '—'}</td>
  </tr>`;
}

async function searchPage(view: View, q: Record<string, string | undefined>) {
  const result = await listReceipts(
    view.ctx.deps,
    view.tenantId,
    {
      from: iso(q['from']),
      to: iso(q['to']),
      subject: orUndefined(q['subject']),
      actionHashHex: orUndefined(q['actionHashHex']),
      credentialId: orUndefined(q['credentialId']),
      order: 'desc',
    },
    { limit: 100 },
  );
  const body = html`${searchForm(q)}
    <section class="card wide" aria-labelledby="results-title">
      <h2 id="results-title">Receipts (newest first)</h2>
      ${
        result.items.length === 0
          ? empty('No receipt matches.')
          : html`<div class="table-wrap">
              <table class="stack" id="receipt-results">
                <thead>
                  <tr>
                    <th scope="col">Receipt</th>
                    <th scope="col">Issued</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Action hash</th>
                    <th scope="col">Purpose</th>
                  </tr>
                </thead>
                <tbody>
                  ${result.items.map(receiptRow)}
                </tbody>
              </table>
            </div>`
      }
      ${result.next ? html`<p class="muted">Showing the newest 100; narrow the search to see others.</p>` : ''}
    </section>
    ${exportForm(q, view.ctx.deps.clock.now())}`;
  return { title: 'Receipts', nav: '/console/receipts', body };
}

async function receiptPage(view: View, receiptId: string) {
  const signed = await getReceipt(view.ctx.deps, view.tenantId, receiptId);
  const report = await checkReceipt(view.ctx.deps, view.tenantId, {
    receiptId,
    receiptHashHex: signed.receiptHashHex,
  });
  const fields = Object.entries(signed.receipt).map(
    ([k, v]) =>
      html`<dt>${k}</dt>
        <dd>
          <code class="wrap">${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}</code>
        </dd>`,
  );
  const body = html`<section class="card wide" aria-labelledby="checks-title">
      <h2 id="checks-title">
        Offline checks ${report.valid ? badge('all passed', 'ok') : badge('failed', 'bad')}
      </h2>
      <ul class="checks-list" id="receipt-checks">
        ${Object.entries(report.checks).map(
          ([name, c]) =>
            html`<li data-check="${name}" data-ok="${c.ok ? 'true' : 'false'}">
              ${c.ok ? badge('pass', 'ok') : badge('fail', 'bad')} <strong>${name}</strong>: ${c.detail}
            </li>`,
        )}
      </ul>
      <p class="muted">Run now with the SDK's offline verifier against the published service keys.</p>
      <p>
        <a href="/console/receipts/${receiptId}/json" download="${receiptId}.json"
          >Download the receipt as JSON</a
        >
      </p>
    </section>
    <section class="card wide" aria-labelledby="fields-title">
      <h2 id="fields-title">Every field</h2>
      <dl class="facts">
        <dt>receiptHashHex</dt>
        <dd><code class="wrap">${signed.receiptHashHex}</code></dd>
        <dt>signature</dt>
        <dd><code class="wrap">${JSON.stringify(signed.signature)}</code></dd>
        ${fields}
      </dl>
    </section>`;
  return { title: `Receipt ${receiptId}`, nav: '/console/receipts', body };
}

export function receiptPages(app: App): void {
  page(app, '/console/receipts', { querystring: SearchQuery }, async ({ view, query }) =>
    searchPage(view, query),
  );
  page(app, '/console/receipts/:receiptId', { params: ReceiptParams }, async ({ view, params }) =>
    receiptPage(view, params.receiptId),
  );

  app.get(
    '/console/receipts/:receiptId/json',
    { schema: { hide: true, params: ReceiptParams } },
    async (request, reply) => {
      const { member } = memberOf(request);
      const signed = await getReceipt(
        consoleRequest(request).ctx.deps,
        member.tenantId,
        request.params.receiptId,
      );
      return reply
        .header('content-disposition', `attachment; filename="${signed.receipt.receiptId}.json"`)
        .type('application/json')
        .send(JSON.stringify(signed, null, 2));
    },
  );

  app.get(
    '/console/receipts/export',
    { schema: { hide: true, querystring: ExportQuery } },
    async (request, reply) => {
      const { member } = memberOf(request);
      requirePermission(member, 'exports');
      const controller = new AbortController();
      const pack = await startExport(
        consoleRequest(request).ctx.deps,
        member.tenantId,
        { query: { from: iso(request.query.from)!, to: iso(request.query.to)! }, apiKeyId: null },
        { signal: controller.signal },
      );
      return sendExportPack(reply, pack, controller);
    },
  );
}
