import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '../http/types.js';

export interface StaticAsset {
  /** Path under which the asset is served, e.g. `/demo/assets/demo.js`. */
  route: string;
  contentType: string;
  body: Buffer;
}

/**
 * The portal's own files live in `src/portal/assets/` (tsc does not copy them to dist/). This URL
 * resolves to that folder both from `src/portal/*.ts` (tests) and from `dist/portal/*.js` (npm start).
 */
const ASSETS_DIR = fileURLToPath(new URL('../../src/portal/assets/', import.meta.url));

/** The base stylesheet every portal page loads before its own (served by the front pages' context). */
export const BASE_STYLESHEET = '/assets/base.css';

export function portalAssetPath(file: string): string {
  return join(ASSETS_DIR, file);
}

/** The UMD bundle of @simplewebauthn/browser, found through Node's resolver (it sets `SimpleWebAuthnBrowser`). */
export function simpleWebAuthnBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js');
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function typeOf(file: string): string {
  const type = TYPES[file.slice(file.lastIndexOf('.'))];
  if (type === undefined) throw new Error(`no content type for portal asset ${file}`);
  return type;
}

/**
 * Reads the assets (`served name → absolute path`) once, at start-up, so a missing file fails
 * the start instead of a page view.
 */
export async function loadAssets(prefix: string, files: Record<string, string>): Promise<StaticAsset[]> {
  return Promise.all(
    Object.entries(files).map(async ([name, path]) => ({
      route: `${prefix}/${name}`,
      contentType: typeOf(name),
      body: await readFile(path),
    })),
  );
}

export function serveAssets(app: App, assets: readonly StaticAsset[]): void {
  for (const asset of assets) {
    app.get(asset.route, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'no-cache').type(asset.contentType).send(asset.body),
    );
  }
}
