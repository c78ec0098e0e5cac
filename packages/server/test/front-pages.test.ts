/**
 * What a newcomer meets at the bare origin: GET / links the console, the demo, the API reference
 * and the problem codes; /docs is our API reference (Redoc from our origin, a per-request nonce,
 * no inline-style allowance); GET /sdk/presence-sdk.tgz is the SDK of this version.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const SDK_VERSION = JSON.parse(
  readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8'),
).version;
const TARBALL = new URL('../dist/sdk/presence-sdk.tgz', import.meta.url);

describeEachDialect('front pages', (dialect) => {
  const s = useTestService(dialect);
  const get = (url: string, headers: Record<string, string> = {}) =>
    s.composed.app.inject({ method: 'GET', url, headers });

  it('GET / is a page that links the console, the API reference, the problem codes and the SDK', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const link of ['/console', '/docs', '/problems', '/openapi.json'])
      expect(res.body).toContain(`href="${link}"`);
    expect(res.body).toContain('/sdk/presence-sdk.tgz');
    expect(res.body).toMatch(/pip install \S+\/sdk\/presence-guard\.tar\.gz/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const css = await get('/assets/front.css');
    expect(css.statusCode).toBe(200);
  });

  it('GET /docs renders with Redoc from our origin under a per-request style nonce, never unsafe-inline', async () => {
    const [a, b] = [await get('/docs'), await get('/docs')];
    expect(a.statusCode).toBe(200);
    expect(a.body).toContain('<title>Presence API reference</title>');
    expect(a.body).not.toMatch(/swagger|https?:\/\/(?!localhost)[a-z]/i);
    const nonce = /data-nonce="([^"]+)"/.exec(a.body)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(a.headers['content-security-policy']).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(String(a.headers['content-security-policy'])).not.toContain('unsafe');
    expect(b.headers['content-security-policy']).not.toContain(nonce);
    const bundle = /<script src="(\/docs\/assets\/redoc-[\d.]+\.js)"/.exec(a.body)?.[1];
    const zipped = await get(bundle!, { 'accept-encoding': 'gzip, br' });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.rawPayload.length).toBeLessThan(450_000);
    const plain = await get(bundle!);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    // Redoc's footer logo would come from its CDN (the CSP would refuse it): the served bundle has none.
    expect(plain.body).not.toContain('cdn.redoc.ly');
    expect(plain.body).toContain('src:"data:,"');
  });

  it.skipIf(!existsSync(TARBALL))(
    'GET /sdk/presence-sdk.tgz is the npm tarball of this SDK version',
    async () => {
      const res = await get('/sdk/presence-sdk.tgz');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/gzip');
      expect(res.headers['content-disposition']).toBe('attachment; filename="presence-sdk.tgz"');
      const tar = gunzipSync(res.rawPayload).toString('latin1');
      expect(tar).toContain('package/package.json');
      expect(tar).toContain('"name": "@presence/sdk"');
      expect(tar).toContain(`"version": "${SDK_VERSION}"`);
    },
  );
});
