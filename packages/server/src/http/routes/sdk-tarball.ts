import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { App } from '../types.js';
import { sendProblem } from '../plugins/problem.js';
import { problemResponses } from './errors.js';

/**
 * The SDK tarball `npm run build` packs (packages/sdk/scripts/pack-sdk.mjs). This path resolves to
 * packages/server/dist/sdk/ both from src/http/routes (tests) and dist/http/routes (the service).
 */
const TARBALL = fileURLToPath(new URL('../../../dist/sdk/presence-sdk.tgz', import.meta.url));

/** The tarball, read once: it changes only with a new build, which means a new process. */
function tarballReader(): () => Promise<Buffer | undefined> {
  let cached: Promise<Buffer> | undefined;
  return async () => {
    cached ??= readFile(TARBALL);
    try {
      return await cached;
    } catch {
      cached = undefined;
      return undefined;
    }
  };
}

/**
 * GET /sdk/presence-sdk.tgz: the npm tarball of this service's own SDK version, so
 * `npm install <origin>/sdk/presence-sdk.tgz` works wherever the service is reachable, with no
 * registry name to trust.
 */
export function sdkTarballRoutes(app: App): void {
  const read = tarballReader();
  app.get('/sdk/presence-sdk.tgz', {
    schema: {
      tags: ['sdk'],
      summary: 'The SDK of this service version as an npm tarball: npm install <origin>/sdk/presence-sdk.tgz',
      response: {
        200: {
          content: {
            'application/gzip': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) },
          },
        },
        ...problemResponses,
      },
    },
    handler: async (request, reply) => {
      const tarball = await read();
      if (tarball === undefined) {
        return sendProblem(
          reply,
          request,
          'not_found',
          'this installation has no SDK tarball: run `npm run build`, which packs it into packages/server/dist/sdk/',
        );
      }
      return reply
        .header('cache-control', 'no-cache')
        .header('content-disposition', 'attachment; filename="presence-sdk.tgz"')
        .type('application/gzip')
        .send(tarball);
    },
  });
}
