import {
  ConsistencyProof,
  ConsistencyProofQuery,
  CosignatureAccepted,
  CosignatureBody,
  InclusionProof,
  InclusionProofQuery,
  NoQuery,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { addLogCosignature } from '../../domain/receipt-log/add-log-cosignature.js';
import { getLogCheckpoint } from '../../domain/receipt-log/get-log-checkpoint.js';
import { proveConsistency, proveInclusion } from '../../domain/receipt-log/prove-log.js';
import { parseTilePath, readLogTile } from '../../domain/receipt-log/read-log-tile.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['receipt log'];

/** The tenant's receipt log (docs/api-contract.md#11-the-receipt-log): checkpoint, proofs, tiles, witness cosignatures. */
export function receiptLogRoutes(app: App, _routeDeps: RouteDeps): void {
  app.get('/v1/presence/log/checkpoint', {
    config: { scope: 'receipts:read' },
    schema: {
      tags,
      summary:
        'The newest signed checkpoint (C2SP tlog-checkpoint as a signed note) with witness cosignatures',
      querystring: NoQuery,
      response: { 200: { content: { 'text/plain': { schema: Type.String() } } }, ...problemResponses },
    },
    handler: async (request, reply) => {
      const checkpoint = await getLogCheckpoint(request.deps, tenantOf(request));
      return reply
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(checkpoint.note);
    },
  });

  app.get('/v1/presence/log/proof/inclusion', {
    config: { scope: 'receipts:read' },
    schema: {
      tags,
      summary: 'RFC 9162 inclusion proof of a leaf (seq − 1) in a tree size',
      querystring: InclusionProofQuery,
      response: { 200: InclusionProof, ...problemResponses },
    },
    handler: async (request) => proveInclusion(request.deps, tenantOf(request), request.query),
  });

  app.get('/v1/presence/log/proof/consistency', {
    config: { scope: 'receipts:read' },
    schema: {
      tags,
      summary: 'RFC 9162 consistency proof between two tree sizes',
      querystring: ConsistencyProofQuery,
      response: { 200: ConsistencyProof, ...problemResponses },
    },
    handler: async (request) => proveConsistency(request.deps, tenantOf(request), request.query),
  });

  app.post('/v1/presence/log/cosignatures', {
    config: { scope: 'receipts:read' },
    schema: {
      tags,
      summary: "Store a witness's C2SP tlog-cosignature of a checkpoint this service signed",
      body: CosignatureBody,
      response: { 201: CosignatureAccepted, 200: CosignatureAccepted, ...problemResponses },
    },
    handler: async (request, reply) => {
      const result = await addLogCosignature(request.deps, tenantOf(request), request.body);
      return reply.code(result.stored ? 201 : 200).send(result);
    },
  });

  app.get('/v1/presence/log/tile/*', {
    config: { scope: 'receipts:read' },
    // Hidden from OpenAPI: a tlog-tiles path has a variable number of segments (x001/x234/067),
    // which OpenAPI path templates cannot express; docs/evidence.md §11 documents it.
    schema: {
      hide: true,
      tags,
      summary: 'A C2SP tlog-tiles tile (tile/<L>/<N>[.p/<W>]) or entry bundle (tile/entries/<N>[.p/<W>])',
      querystring: NoQuery,
      response: {
        200: {
          content: {
            'application/octet-stream': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) },
          },
        },
        ...problemResponses,
      },
    },
    handler: async (request, reply) => {
      const path = (request.params as { '*': string })['*'];
      const bytes = await readLogTile(request.deps, tenantOf(request), parseTilePath(path));
      return reply
        .header('cache-control', 'private, max-age=60')
        .type('application/octet-stream')
        .send(bytes);
    },
  });
}
