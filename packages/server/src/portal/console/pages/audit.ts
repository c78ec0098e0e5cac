import { Readable } from 'node:stream';
import { AUDIT_ACTOR_TYPES, type AuditEvent } from '@presence/contract';
import { listAuditEvents, resolveAuditFilter } from '../../../domain/audit/list-audit-events.js';
import type { Deps } from '../../../domain/deps.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { consoleRequest, memberOf } from '../console-context.js';
import { page } from '../routes.js';
import { empty, when } from '../widgets.js';
import {
  AuditExportQuery,
  AuditFilterQuery,
  CSV_COLUMNS,
  csvLine,
  filterParams,
  toAuditQuery,
} from './audit-query.js';

const PAGE_SIZE = 100;
const ACTOR_LABELS = {
  api_key: 'API key',
  console_member: 'Console member',
  operator: 'Operator API',
  cli: 'CLI',
};

function filterForm(q: AuditFilterQuery): SafeHtml {
  const exportLink = (format: string) => {
    const params = filterParams(q);
    params.set('format', format);
    return `/console/audit/export?${params.toString()}`;
  };
  return html`<section class="card wide" aria-labelledby="audit-filter-title">
    <h2 id="audit-filter-title">Filter</h2>
    <form method="get" action="/console/audit" class="search">
      <label
        >Who
        <select name="actorType">
          <option value="">Anyone</option>
          ${AUDIT_ACTOR_TYPES.map(
            (t) =>
              html`<option value="${t}" ${q.actorType === t ? 'selected' : ''}>${ACTOR_LABELS[t]}</option>`,
          )}
        </select></label
      >
      <label>Action <input name="action" value="${q.action ?? ''}" placeholder="api_key.created" /></label>
      <label>From (UTC) <input type="datetime-local" name="from" value="${q.from ?? ''}" /></label>
      <label>To (UTC) <input type="datetime-local" name="to" value="${q.to ?? ''}" /></label>
      <button type="submit">Filter audit events</button>
    </form>
    <p>
      <a href="${exportLink('csv')}" download>Download CSV</a> ·
      <a href="${exportLink('ndjson')}" download>Download NDJSON</a>
      <span class="muted">(every event matching the filter)</span>
    </p>
  </section>`;
}

function row(e: AuditEvent): SafeHtml {
  return html`<tr>
    <td data-label="When">${when(e.at)}</td>
    <td data-label="Who">${e.actor.name} <span class="muted">(${ACTOR_LABELS[e.actor.type]})</span></td>
    <th scope="row"><code>${e.action}</code></th>
    <td data-label="Target">${e.target.name ?? ''} <code>${e.target.id}</code></td>
    <td data-label="Approved by">
      ${
        e.receiptId
          ? html`receipt
              <code title="the receipt of the passkey check, in the console's own receipt log"
                >${e.receiptId}</code
              >`
          : ''
      }
      ${
        e.approvalId
          ? html`approval
              <code
                title="the approval whose approvers allowed it; its signed approval set proves who approved"
                >${e.approvalId}</code
              >`
          : ''
      }
      ${e.receiptId || e.approvalId ? '' : html`<span class="muted">no passkey needed</span>`}
    </td>
  </tr>`;
}

function table(items: AuditEvent[]): SafeHtml {
  return html`<div class="table-wrap">
    <table class="stack" id="audit-log">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Approved by</th>
        </tr>
      </thead>
      <tbody>
        ${items.map(row)}
      </tbody>
    </table>
  </div>`;
}

/** Every matching event, newest first, page by page (memory stays flat). */
async function* exportLines(deps: Deps, tenantId: string, q: AuditFilterQuery, format: 'csv' | 'ndjson') {
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`;
  let beforeId: string | undefined;
  for (;;) {
    const page = await listAuditEvents(deps, tenantId, toAuditQuery(q), { limit: 500, beforeId });
    for (const e of page.items) yield format === 'csv' ? csvLine(e) : `${JSON.stringify(e)}\n`;
    if (!page.hasMore) return;
    beforeId = page.items.at(-1)?.auditEventId;
  }
}

/** The console's audit page: the same events as GET /v1/audit-events, filtered and exported. */
export function auditPages(app: App): void {
  page(app, '/console/audit', { querystring: AuditFilterQuery }, async ({ view, query }) => {
    const result = await listAuditEvents(view.ctx.deps, view.tenantId, toAuditQuery(query), {
      limit: PAGE_SIZE,
      beforeId: query.before,
    });
    const next = filterParams(query);
    next.set('before', result.items.at(-1)?.auditEventId ?? '');
    const body = html`${filterForm(query)}
      <section class="card wide" aria-labelledby="audit-title">
        <h2 id="audit-title">Every change of configuration or access (newest first)</h2>
        ${result.items.length === 0 ? empty('No audit events match.') : table(result.items)}
        ${result.hasMore ? html`<p><a href="/console/audit?${next.toString()}">Older events</a></p>` : ''}
        <p class="muted">
          Changes made with API keys, in this console, with the CLI and through the operator API. The same
          events are at <code>GET /v1/audit-events</code> and, for a SIEM, in the
          <code>audit.event</code> webhook.
        </p>
      </section>`;
    return { title: 'Audit log', nav: '/console/audit', body };
  });

  app.get(
    '/console/audit/export',
    { schema: { hide: true, querystring: AuditExportQuery } },
    async (request, reply) => {
      const { member } = memberOf(request);
      const { format, ...filters } = request.query;
      resolveAuditFilter(toAuditQuery(filters)); // a bad range is a 400 before anything is sent
      const lines = exportLines(consoleRequest(request).ctx.deps, member.tenantId, filters, format);
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="audit-events.${format}"`)
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
        .send(Readable.from(lines));
    },
  );
}
