import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cryptoRandom } from '../crypto-random.js';
import type { App } from '../http/types.js';
import { html, type SafeHtml } from './html.js';
import {
  BASE_STYLESHEET,
  loadAssets,
  portalAssetPath,
  serveAssets,
  type StaticAsset,
} from './static-assets.js';
import { PORTAL_CSP, addSecurityHeaders } from './security-headers.js';

const FRONT_ASSETS = '/assets';
const REDOC_VERSION = (createRequire(import.meta.url)('redoc/package.json') as { version: string }).version;
/** Versioned path: the bundle is cached for a year and a new Redoc gets a new URL. */
const REDOC_ROUTE = `/docs/assets/redoc-${REDOC_VERSION}.js`;

function redocBundlePath(): string {
  return join(
    dirname(createRequire(import.meta.url).resolve('redoc/package.json')),
    'bundles/redoc.standalone.js',
  );
}

export interface FrontPageOptions {
  /** Whether /demo exists (the development tenant is on). */
  demo: boolean;
}

function page(title: string, head: SafeHtml | string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="icon" href="${FRONT_ASSETS}/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="${BASE_STYLESHEET}" />
        <link rel="stylesheet" href="${FRONT_ASSETS}/front.css" />
        ${head}
      </head>
      <body>
        ${body}
      </body>
    </html>`.toString();
}

const BAR_LINKS = [
  ['/console', 'Console'],
  ['/docs', 'API reference'],
  ['/problems', 'Problem codes'],
] as const;

function bar(here: string): SafeHtml {
  const links = BAR_LINKS.map(([href, label]) =>
    href === here
      ? html`<a href="${href}" aria-current="page">${label}</a>`
      : html`<a href="${href}">${label}</a>`,
  );
  return html`<nav class="bar" aria-label="Presence"><a class="name" href="/">Presence</a>${links}</nav>`;
}

/** GET /: what this service is and where to go, for the person who opens the bare origin. */
export function renderHomePage(options: FrontPageOptions & { origin: string }): string {
  const sdk = `npm install ${options.origin}/sdk/presence-sdk.tgz`;
  const guard = `pip install ${options.origin}/sdk/presence-guard.tar.gz`;
  return page(
    'Presence',
    '',
    html`${bar('/')}
      <main class="home">
        <h1>Presence</h1>
        <p class="lead">
          A passkey check before irreversible actions, with signed receipts anyone can verify offline.
        </p>
        <ul class="cards">
          <li>
            <a href="/console">Console</a>
            <p>Members, API keys, policy, webhooks and receipts of your tenant.</p>
          </li>
          ${
            options.demo
              ? html`<li>
                  <a href="/demo">Demo</a>
                  <p>Approve a sample payout with a passkey and check its receipt.</p>
                </li>`
              : ''
          }
          <li>
            <a href="/docs">API reference</a>
            <p>
              Every route, its scope, request and response, from <a href="/openapi.json">openapi.json</a>.
            </p>
          </li>
          <li>
            <a href="/problems">Problem codes</a>
            <p>Every error and denial: what causes it and what to do.</p>
          </li>
        </ul>
        <h2>Install the SDK from this service</h2>
        <pre><code>${sdk}</code></pre>
        <p>The executor's guard for Python services (<code>presence_guard</code>), of this same version:</p>
        <pre><code>${guard}</code></pre>
        <p>
          The integration guide (<code>docs/integration.md</code> in the repository) takes you from an API key
          to a verified receipt, a received webhook and a receipt verified offline.
        </p>
      </main>`,
  );
}

/** GET /docs: the API reference, rendered by Redoc from our own origin under a nonce-based CSP. */
export function renderReferencePage(nonce: string): string {
  return page(
    'Presence API reference',
    html`<script src="${FRONT_ASSETS}/api-reference.js" defer></script>
      <script src="${REDOC_ROUTE}" defer></script>`,
    html`${bar('/docs')}
      <main id="reference" class="reference" data-spec-url="/openapi.json" data-nonce="${nonce}">
        <noscript
          ><p>
            The reference needs JavaScript; the document itself is <a href="/openapi.json">/openapi.json</a>.
          </p></noscript
        >
      </main>`,
  );
}

/** Redoc injects style elements, which carry this request's nonce; its search runs in a blob: worker. */
function referenceCsp(nonce: string): string {
  return PORTAL_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`) + '; worker-src blob:';
}

/**
 * Redoc's sidebar footer loads its logo from Redocly's CDN, with no option to turn it off; our CSP
 * would refuse it (a violation on every view). Served from here, the bundle points that image at an
 * empty data URL instead: nothing is requested off-origin, the image fails to decode and Redoc's own
 * error handler removes it, leaving the footer's text link.
 */
const REDOC_CDN_LOGO = 'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"';

function withoutForeignRequests(bundle: Buffer): Buffer {
  return Buffer.from(bundle.toString('utf8').replace(REDOC_CDN_LOGO, 'src:"data:,"'), 'utf8');
}

async function redocAsset(): Promise<StaticAsset & { gzip: Buffer }> {
  const [loaded] = await loadAssets('/docs/assets', { [`redoc-${REDOC_VERSION}.js`]: redocBundlePath() });
  const asset = { ...loaded!, body: withoutForeignRequests(loaded!.body) };
  return { ...asset, gzip: gzipSync(asset.body, { level: 9 }) };
}

/** GET / and GET /docs, with their assets, in their own encapsulated context. */
export function frontPages(options: FrontPageOptions & { origin: string }) {
  return async (app: App): Promise<void> => {
    const assets = await loadAssets(FRONT_ASSETS, {
      'base.css': portalAssetPath('base.css'),
      'front.css': portalAssetPath('front.css'),
      'favicon.svg': portalAssetPath('favicon.svg'),
      'api-reference.js': portalAssetPath('api-reference.js'),
    });
    const redoc = await redocAsset();
    const home = renderHomePage(options);
    await app.register(async (child) => {
      addSecurityHeaders(child);
      serveAssets(child, assets);
      child.get(REDOC_ROUTE, { schema: { hide: true } }, async (request, reply) => {
        reply
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('vary', 'accept-encoding');
        reply.type(redoc.contentType);
        if (!/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.send(redoc.body);
        return reply.header('content-encoding', 'gzip').send(redoc.gzip);
      });
      child.get('/', { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(home),
      );
      child.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
        const nonce = cryptoRandom.bytes(16).toString('base64');
        return reply
          .header('content-security-policy', referenceCsp(nonce))
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(renderReferencePage(nonce));
      });
    });
  };
}
