import { ExportReceiptsQuery, ListReceiptsQuery, ReceiptListPage } from '@presence/contract';
import { startExport } from '../../domain/exports/start-export.js';
import { listReceipts } from '../../domain/receipts/list-receipts.js';
import type { ReceiptLogPosition } from '../../domain/receipts/receipt-log-ports.js';
import { cursorScope, type CursorCodec } from '../cursor.js';
import { observeExport } from '../observe-export.js';
import { sendExportPack } from '../send-export-pack.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['receipts'];

/** The receipt log: paged listing and the signed, streamed export pack (docs/api-contract.md#6-receipts, docs/api-contract.md#7-export-packs). */
export function receiptEvidenceRoutes(app: App, { cursors, metrics }: RouteDeps): void {
  app.get('/v1/presence/receipts', {
    config: { scope: 'receipts:read' },
    schema: {
      tags,
      summary: 'List receipts in commit order (seq), newest first unless order=asc',
      querystring: ListReceiptsQuery,
      response: { 200: ReceiptListPage, ...problemResponses },
    },
    handler: async (request) => {
      const { limit = 50, cursor, order = 'desc', ...filters } = request.query;
      const scope = cursorScope(tenantOf(request), 'receipts', { ...filters, order });
      const position = cursor === undefined ? undefined : readPosition(cursors, scope, cursor, order);
      const page = await listReceipts(
        request.deps,
        tenantOf(request),
        { ...filters, order },
        { limit, position },
      );
      return {
        data: page.items,
        nextCursor: page.next && cursors.encode(scope, { a: page.next.after, s: page.next.stop }),
      };
    },
  });

  app.get('/v1/presence/receipts/export', {
    config: { scope: 'receipts:export' },
    schema: {
      tags,
      summary: 'Stream a signed zip pack of the receipts issued in [from, to)',
      querystring: ExportReceiptsQuery,
      produces: ['application/zip'],
      response: { 200: { description: 'the export pack (application/zip)' }, ...problemResponses },
    },
    handler: async (request, reply) => {
      const controller = new AbortController();
      const pack = await startExport(
        request.deps,
        tenantOf(request),
        { query: request.query, apiKeyId: request.auth?.keyId ?? null },
        { signal: controller.signal },
      );
      const observe = observeExport(metrics, reply, { tenantId: tenantOf(request), exportId: pack.exportId });
      return sendExportPack(reply, pack, controller, observe);
    },
  });
}

function readPosition(
  cursors: CursorCodec,
  scope: string,
  cursor: string,
  order: 'asc' | 'desc',
): ReceiptLogPosition {
  const { a, s } = cursors.decode(scope, cursor);
  const seqOrNull = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  return { order, after: seqOrNull(a), stop: seqOrNull(s) };
}
