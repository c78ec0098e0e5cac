import {
  Invoice,
  InvoiceParams,
  ListInvoicesQuery,
  NoQuery,
  Page,
  UsageQuery,
  UsageReport,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { getUsage } from '../../domain/billing/get-usage.js';
import { getInvoice, getInvoiceDocument, listInvoices } from '../../domain/billing/list-invoices.js';
import { DomainError } from '../../domain/errors.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { renderInvoiceHtml, INVOICE_HTML_CSP } from './billing-invoice-html.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['billing'];

export function billingRoutes(app: App, { cursors }: RouteDeps): void {
  app.get('/v1/billing/usage', {
    config: { scope: 'billing:read' },
    schema: {
      tags,
      summary: 'Usage per meter over a UTC range, in total and per hour, day or month',
      description:
        '`from` (inclusive) and `to` (exclusive) must be aligned to the granularity; at most 31 days by hour, 366 days by day, 120 months by month.',
      querystring: UsageQuery,
      response: { 200: UsageReport, ...problemResponses },
    },
    handler: async (request) => getUsage(request.deps, tenantOf(request), request.query),
  });

  app.get('/v1/billing/invoices', {
    config: { scope: 'billing:read' },
    schema: {
      tags,
      summary: 'Invoices, newest period first: the live drafts of unclosed periods, then finalized ones',
      querystring: ListInvoicesQuery,
      response: { 200: Page(Invoice), ...problemResponses },
    },
    handler: async (request) => {
      const { limit = 50, cursor, status } = request.query;
      const scope = cursorScope(tenantOf(request), 'invoices', { status });
      const position = cursor === undefined ? undefined : cursors.decode(scope, cursor).before;
      if (position !== undefined && typeof position !== 'number') {
        throw new DomainError('invalid_cursor', 'the cursor holds no position');
      }
      const before = position;
      const page = await listInvoices(request.deps, tenantOf(request), { status }, { limit, before });
      const next = page.nextBefore;
      return {
        data: page.items,
        nextCursor: next === undefined ? null : cursors.encode(scope, { before: next }),
      };
    },
  });

  app.get('/v1/billing/invoices/:invoiceId', {
    config: { scope: 'billing:read' },
    schema: {
      tags,
      summary: 'One invoice (inv_…), or the live draft of an unclosed period (draft_YYYY-MM)',
      params: InvoiceParams,
      querystring: NoQuery,
      response: { 200: Invoice, ...problemResponses },
    },
    handler: async (request) => getInvoice(request.deps, tenantOf(request), request.params.invoiceId),
  });

  app.get('/v1/billing/invoices/:invoiceId.html', {
    config: { scope: 'billing:read' },
    schema: {
      tags,
      summary: 'One invoice as a printable HTML document',
      params: InvoiceParams,
      querystring: NoQuery,
      response: { 200: { content: { 'text/html': { schema: Type.String() } } }, ...problemResponses },
    },
    handler: async (request, reply) => {
      const document = await getInvoiceDocument(request.deps, tenantOf(request), request.params.invoiceId);
      return reply
        .header('content-security-policy', INVOICE_HTML_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .header(
          'content-disposition',
          `inline; filename="${document.invoice.number ?? document.invoice.invoiceId}.html"`,
        )
        .type('text/html; charset=utf-8')
        .send(renderInvoiceHtml(document.invoice, document.customerName));
    },
  });
}
