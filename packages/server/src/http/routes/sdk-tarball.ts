import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { App } from '../types.js';
import { sendProblem } from '../plugins/problem.js';
import { problemResponses } from './errors.js';

/**
 * The packages `npm run build` writes into packages/server/dist/sdk/: the npm tarball of the SDK
 * (packages/sdk/scripts/pack-sdk.mjs) and the sdist of the Python guard
 * (packages/python/scripts/pack-sdist.mjs). The URL resolves to that directory both from
 * src/http/routes (tests) and dist/http/routes (the service).
 */
const SDK_DIR = new URL('../../../dist/sdk/', import.meta.url);

/** A package file, read once: it changes only with a new build, which means a new process. */
function fileReader(name: string): () => Promise<Buffer | undefined> {
  const path = fileURLToPath(new URL(name, SDK_DIR));
  let cached: Promise<Buffer> | undefined;
  return async () => {
    cached ??= readFile(path);
    try {
      return await cached;
    } catch {
      cached = undefined;
      return undefined;
    }
  };
}

const PACKAGES = [
  {
    file: 'presence-sdk.tgz',
    summary: 'The SDK of this service version as an npm tarball: npm install <origin>/sdk/presence-sdk.tgz',
  },
  {
    file: 'presence-guard.tar.gz',
    summary:
      'The Python executor guard (presence_guard) of this service version as an sdist: pip install <origin>/sdk/presence-guard.tar.gz',
  },
] as const;

/**
 * GET /sdk/presence-sdk.tgz and GET /sdk/presence-guard.tar.gz: the npm SDK and the Python guard
 * of this service's own version, so `npm install <origin>/sdk/presence-sdk.tgz` and
 * `pip install <origin>/sdk/presence-guard.tar.gz` work wherever the service is reachable, with no
 * registry name to trust.
 */
export function sdkTarballRoutes(app: App): void {
  for (const { file, summary } of PACKAGES) {
    const read = fileReader(file);
    app.get(`/sdk/${file}`, {
      schema: {
        tags: ['sdk'],
        summary,
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
        const packed = await read();
        if (packed === undefined) {
          return sendProblem(
            reply,
            request,
            'not_found',
            `this installation has no ${file}: run \`npm run build\`, which writes it into packages/server/dist/sdk/`,
          );
        }
        return reply
          .header('cache-control', 'no-cache')
          .header('content-disposition', `attachment; filename="${file}"`)
          .type('application/gzip')
          .send(packed);
      },
    });
  }
}
