// Run: npm run build && node bench/console/run.mjs [--receipts 100] [--views 30] [--json <file>]
//
// Console page weights and server render times. In process: the real composed service (SQLite in a
// temp dir), driven with app.inject, so the figures are the server's own work (no socket, no
// browser). Seeds one tenant with an owner who joined through an invite with a software passkey,
// `receipts` verified presence checks made through the domain, 10 API keys and one webhook endpoint
// with 5 pending test deliveries. Then each page is requested `views` times (after 3 warm-up views)
// and we report:
//   html       bytes of the HTML document (and gzip -6 of it, what a compressing proxy would send)
//   js, css    bytes of the scripts and stylesheets the page loads (the same for every console page)
//   render     the page's own `server-timing: render;dur=` (handler start to HTML string), median
//              and p95, in ms
/* global URL, process, console */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dist = (p) => join(ROOT, 'packages/server/dist', p);
const { compose } = await import(dist('compose.js'));
const { loadConfig } = await import(dist('config/load-config.js'));
const { createInvite } = await import(dist('domain/console/create-invite.js'));
const { createApiKey } = await import(dist('domain/api-keys/create-api-key.js'));
const { createRegistrationOptions } = await import(dist('domain/credentials/create-registration-options.js'));
const { registerCredential } = await import(dist('domain/credentials/register-credential.js'));
const { createChallenge } = await import(dist('domain/presence/create-challenge.js'));
const { verifyPresence } = await import(dist('domain/presence/verify-presence.js'));
const { createWebhookEndpoint } = await import(dist('domain/webhooks/manage-webhook-endpoints.js'));
const { sendTestWebhook } = await import(dist('domain/webhooks/manage-webhook-deliveries.js'));
const { SoftwareAuthenticator } = await import(
  join(ROOT, 'packages/sdk/dist/testing/software-authenticator.js')
);

const { values: args } = parseArgs({
  options: {
    receipts: { type: 'string', default: '100' },
    views: { type: 'string', default: '30' },
    json: { type: 'string' },
  },
});
const RECEIPTS = Number(args.receipts);
const VIEWS = Number(args.views);
const ORIGIN = 'http://localhost:8080';

const dir = mkdtempSync(join(tmpdir(), 'presence-console-bench-'));
const config = loadConfig({
  PRESENCE_DATA_DIR: dir,
  PRESENCE_DEV_TENANT: 'true',
  PRESENCE_DEV_ORIGIN: ORIGIN,
  PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
  PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
  PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
  PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
  PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
  LOG_LEVEL: 'silent',
});
const composed = await compose(config, false);
const { app, deps } = composed;

try {
  const settings = await composed.consoleSettings();
  const tenantId = (await deps.store.tenants.list()).find((t) => t.name === 'development').id;
  const cookie = await join_(settings, tenantId);
  const seeded = await seed(tenantId);
  const pages = [
    ['overview', '/console'],
    ['API keys', '/console/keys'],
    ['webhooks', '/console/webhooks'],
    ['webhook endpoint + log', `/console/webhooks/${seeded.endpointId}`],
    [`receipts (newest ${Math.min(100, RECEIPTS)})`, '/console/receipts'],
    ['receipt + live checks', `/console/receipts/${seeded.receiptId}`],
    ['credentials', '/console/credentials'],
    ['policy', '/console/policy'],
    ['usage and invoices', '/console/usage'],
    ['members', '/console/members'],
    ['audit log', '/console/audit'],
    ['sign in (no session)', '/console/sign-in'],
  ];
  const assets = ['console.js', 'console-changes.js', 'simplewebauthn-browser.js', 'console.css'];
  const sizes = {};
  for (const a of assets) {
    const res = await app.inject({ method: 'GET', url: `/console/assets/${a}` });
    sizes[a] = { bytes: res.rawPayload.length, gzip: gzipSync(res.rawPayload, { level: 6 }).length };
  }
  const scripts = ['console.js', 'console-changes.js', 'simplewebauthn-browser.js'];
  const js = scripts.reduce((sum, a) => sum + sizes[a].bytes, 0);
  const jsGzip = scripts.reduce((sum, a) => sum + sizes[a].gzip, 0);
  const rows = [];
  for (const [name, url] of pages) {
    const headers = name.startsWith('sign in') ? {} : { cookie };
    const times = [];
    let html = 0;
    let gzip = 0;
    for (let i = 0; i < VIEWS + 3; i++) {
      const res = await app.inject({ method: 'GET', url, headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      const dur = /render;dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''))?.[1];
      if (i >= 3 && dur !== undefined) times.push(Number(dur));
      html = res.rawPayload.length;
      gzip = gzipSync(res.rawPayload, { level: 6 }).length;
    }
    times.sort((a, b) => a - b);
    const q = (p) => (times.length ? times[Math.min(times.length - 1, Math.floor(p * times.length))] : NaN);
    rows.push({
      page: name,
      url,
      html,
      htmlGzip: gzip,
      js,
      jsGzip,
      css: sizes['console.css'].bytes,
      renderMedianMs: q(0.5),
      renderP95Ms: q(0.95),
    });
  }
  console.log(`console pages: ${RECEIPTS} receipts, ${VIEWS} views each, SQLite, node ${process.version}`);
  console.log('| page | HTML (gzip) | JS (gzip) | CSS | render median / p95 |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const render = Number.isNaN(r.renderMedianMs)
      ? 'n/a'
      : `${r.renderMedianMs.toFixed(1)} / ${r.renderP95Ms.toFixed(1)} ms`;
    console.log(
      `| ${r.page} | ${r.html} B (${r.htmlGzip}) | ${r.js} B (${r.jsGzip}) | ${r.css} B | ${render} |`,
    );
  }
  if (args.json)
    writeFileSync(args.json, JSON.stringify({ receipts: RECEIPTS, views: VIEWS, sizes, rows }, null, 2));
} finally {
  await composed.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Joins through an invite with a software passkey; returns the session cookie. */
async function join_(settings, tenantId) {
  const { inviteUrl } = await createInvite(deps, settings, { tenantId, role: 'owner', createdBy: null });
  const token = new URL(inviteUrl).pathname.split('/').at(-1);
  const passkey = new SoftwareAuthenticator({ rpId: 'localhost', origin: ORIGIN });
  const post = (url, body) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const options = (await post(`/console/api/invite/${token}/options`, { displayName: 'Bench' })).json();
  const credential = passkey.register({ challenge: options.publicKey.challenge });
  const joined = await post(`/console/api/invite/${token}`, {
    displayName: 'Bench',
    registrationId: options.registrationId,
    credential,
  });
  if (joined.statusCode !== 200) throw new Error(`join failed: ${joined.body}`);
  return String(joined.headers['set-cookie']).split(';')[0];
}

async function seed(tenantId) {
  for (let i = 0; i < 10; i++)
    await createApiKey(deps, tenantId, { name: `key ${i}`, scopes: ['receipts:read'] });
  const { endpoint } = await createWebhookEndpoint(deps, tenantId, {
    url: 'http://127.0.0.1:9/hook',
    events: ['receipt.created'],
  });
  for (let i = 0; i < 5; i++) await sendTestWebhook(deps, tenantId, endpoint.id);
  const customer = new SoftwareAuthenticator({ rpId: 'localhost', origin: ORIGIN });
  const reg = await createRegistrationOptions(deps, tenantId, { subject: 'customer-1' });
  await registerCredential(deps, tenantId, {
    registrationId: reg.registrationId,
    credential: customer.register({ challenge: reg.publicKey.challenge }),
  });
  let receiptId;
  for (let i = 0; i < RECEIPTS; i++) {
    const c = await createChallenge(deps, tenantId, {
      actionHashHex: randomBytes(32).toString('hex'),
      subject: 'customer-1',
    });
    const result = await verifyPresence(deps, tenantId, {
      challengeId: c.challengeId,
      assertion: customer.authenticate({ challenge: c.publicKey.challenge }),
    });
    receiptId = result.receiptId;
  }
  return { endpointId: endpoint.id, receiptId };
}
