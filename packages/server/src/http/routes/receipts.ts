import {
  NoQuery,
  ReceiptParams,
  ReceiptVerification,
  SignedReceipt,
  VerifyReceiptBody,
} from '@presence/contract';
import { checkReceipt, type CheckReceiptInput } from '../../domain/receipts/check-receipt.js';
import { getReceipt } from '../../domain/receipts/get-receipt.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

export function receiptRoutes(app: App, _routeDeps: RouteDeps): void {
  app.get('/v1/presence/receipts/:receiptId', {
    config: { scope: 'receipts:read' },
    schema: {
      tags: ['receipts'],
      summary: 'A receipt with its hash and the service signature',
      params: ReceiptParams,
      querystring: NoQuery,
      response: { 200: SignedReceipt, ...problemResponses },
    },
    handler: async (request) => getReceipt(request.deps, tenantOf(request), request.params.receiptId),
  });

  app.post('/v1/presence/receipts/verify', {
    config: { scope: 'receipts:read' },
    schema: {
      tags: ['receipts'],
      summary: 'Run every offline check on a receipt, and say whether this service stored it',
      body: VerifyReceiptBody,
      response: { 200: ReceiptVerification, ...problemResponses },
    },
    handler: async (request) =>
      checkReceipt(request.deps, tenantOf(request), request.body as CheckReceiptInput),
  });
}
