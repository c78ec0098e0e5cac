import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { compose, type Composed } from '../compose.js';
import { loadConfig } from '../config/load-config.js';
import { DEMO_PAYOUT_TEMPLATE, newDemoPayout } from './demo-action.js';
import { escapeHtml, html } from './html.js';
import { PORTAL_CSP } from './security-headers.js';

async function start(devTenant: boolean): Promise<{ composed: Composed; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'presence-portal-'));
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: String(devTenant),
    PRESENCE_DEV_ORIGIN: 'http://localhost:8080',
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
  });
  return { composed: await compose(config, false), dir };
}

describe('html template', () => {
  it('escapes every interpolated value and keeps nested fragments', () => {
    const evil = `<script>alert("x")</script>&'`;
    expect(html`<p title="${evil}">${evil}${html`<b>${'<i>'}</b>`}</p>`.toString()).toBe(
      `<p title="${escapeHtml(evil)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;<b>&lt;i&gt;</b></p>`,
    );
  });
});

describe('demo page with the development tenant', () => {
  let composed: Composed;
  let dir: string;
  beforeAll(async () => ({ composed, dir } = await start(true)));
  afterAll(async () => {
    await composed.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes every approval a distinct payout, hashed over its canonical bytes', () => {
    const random = { bytes: (n: number) => randomBytes(n) };
    const [a, b] = [newDemoPayout(random), newDemoPayout(random)];
    expect(a.action).toMatchObject(DEMO_PAYOUT_TEMPLATE);
    expect(a.action['payoutId']).toMatch(/^pay_[0-9a-f]{24}$/);
    expect(a.actionHashHex).toBe(computeActionHash(a.action));
    expect(a.actionHashHex).not.toBe(b.actionHashHex);
  });

  it('says which address to open when the host is not an allowed origin', async () => {
    const wrong = await composed.app.inject({
      method: 'GET',
      url: '/demo',
      headers: { host: '127.0.0.1:8080' },
    });
    expect(wrong.body).toContain('id="wrong-origin"');
    expect(wrong.body).toContain('href="http://localhost:8080/demo"');
    const right = await composed.app.inject({
      method: 'GET',
      url: '/demo',
      headers: { host: 'localhost:8080' },
    });
    expect(right.body).not.toContain('id="wrong-origin"');
  });

  it('serves the page with a strict CSP and no inline script or style', async () => {
    const res = await composed.app.inject({ method: 'GET', url: '/demo' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(PORTAL_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain(DEMO_PAYOUT_TEMPLATE.iban);
    expect(res.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.body).not.toMatch(/\sstyle=|<style|\son[a-z]+=/);
  });

  it.each([
    ['/demo/assets/demo.js', /^text\/javascript/],
    ['/demo/assets/demo.css', /^text\/css/],
    ['/demo/assets/simplewebauthn-browser.js', /^text\/javascript/],
  ])('serves %s', async (url, type) => {
    const res = await composed.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['content-security-policy']).toBe(PORTAL_CSP);
    expect(res.body.length).toBeGreaterThan(100);
  });

  it('rejects a subject the demo did not make with 400 problem+json', async () => {
    const res = await composed.app.inject({
      method: 'POST',
      url: '/demo/api/challenges',
      payload: { subject: 'alice' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('rejects a body that names the action: the browser never chooses it', async () => {
    const payload = { subject: 'demo-0123456789abcdef', actionHashHex: '0'.repeat(64) };
    const res = await composed.app.inject({ method: 'POST', url: '/demo/api/challenges', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a challenge for a subject without credentials with 422 problem+json', async () => {
    const payload = { subject: 'demo-0123456789abcdef' };
    const res = await composed.app.inject({ method: 'POST', url: '/demo/api/challenges', payload });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'policy_violation' });
  });

  it('makes registration options for the demo subject on rpId localhost', async () => {
    const payload = { subject: 'demo-0123456789abcdef' };
    const res = await composed.app.inject({ method: 'POST', url: '/demo/api/registration-options', payload });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      publicKey: { rp: { id: 'localhost' }, user: { name: payload.subject } },
    });
  });

  it('rejects a malformed registration and an unknown receipt as problem+json', async () => {
    const bad = await composed.app.inject({
      method: 'POST',
      url: '/demo/api/credentials',
      payload: { registrationId: 'reg_x' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request' });
    const missing = await composed.app.inject({
      method: 'GET',
      url: `/demo/api/receipts/rct_${'0'.repeat(26)}`,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers an unknown challenge with a denial, not a success', async () => {
    const assertion = {
      id: 'AA',
      rawId: 'AA',
      type: 'public-key',
      response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' },
    };
    const payload = { challengeId: `chl_${'0'.repeat(26)}`, assertion };
    const res = await composed.app.inject({ method: 'POST', url: '/demo/api/verify', payload });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ decision: 'CHALLENGE_NOT_FOUND' });
  });
});

describe('demo page without the development tenant', () => {
  it('answers /demo and its API with 404 problem+json', async () => {
    const { composed, dir } = await start(false);
    try {
      for (const url of ['/demo', '/demo/assets/demo.js']) {
        const res = await composed.app.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const api = await composed.app.inject({
        method: 'POST',
        url: '/demo/api/challenges',
        payload: { subject: 'demo-0123456789' },
      });
      expect(api.statusCode).toBe(404);
    } finally {
      await composed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
