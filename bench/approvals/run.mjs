// Run: npm run build && node --expose-gc bench/approvals/run.mjs [--rounds 200] [--page-requests 2000]
//      [--waiters 1000] [--wakes 100]
//
// Approvals (docs/api-contract.md#13-approvals), one process with the real composed service on SQLite in a temp dir,
// listening on 127.0.0.1. Figures are printed, never asserted:
//   page       GET /approve/<token>: time to first byte (undici, 16 connections) p50/p99, and the
//              page's weight (HTML + the assets it loads, raw and gzip -6)
//   cpu        server CPU (process.cpuUsage, user+system) per plain verify (challenge + verify, the
//              same-run ceiling), per approver decision that does not settle the approval (options +
//              decide), and per decision that settles it and signs the approval set; as ratios
//   long poll  RSS of this process with `waiters` GET /v1/approvals/{id}?waitSeconds=60 held open by a
//              child process, minus the RSS before; then `wakes` decisions, one at a time, each timed
//              from the decision's start to its waiter's answer arriving in the child
/* global URL, process, console, performance, Buffer */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Pool } from 'undici';
import { freePort, ms, q, sleep } from './util.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dist = (p) => join(ROOT, 'packages/server/dist', p);
const { compose } = await import(dist('compose.js'));
const { loadConfig } = await import(dist('config/load-config.js'));
const { createApiKey } = await import(dist('domain/api-keys/create-api-key.js'));
const { OWNER_SCOPES } = await import(dist('domain/api-keys/check-grantable-scopes.js'));
const { createRegistrationOptions } = await import(dist('domain/credentials/create-registration-options.js'));
const { registerCredential } = await import(dist('domain/credentials/register-credential.js'));
const { createChallenge } = await import(dist('domain/presence/create-challenge.js'));
const { verifyPresence } = await import(dist('domain/presence/verify-presence.js'));
const { createApproval } = await import(dist('domain/approvals/create-approval.js'));
const { startApprovalCeremony } = await import(dist('domain/approvals/start-approval-ceremony.js'));
const { decideApproval } = await import(dist('domain/approvals/decide-approval.js'));
const { SoftwareAuthenticator } = await import(
  join(ROOT, 'packages/sdk/dist/testing/software-authenticator.js')
);

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '200' },
    'page-requests': { type: 'string', default: '2000' },
    waiters: { type: 'string', default: '1000' },
    wakes: { type: 'string', default: '100' },
  },
});
const ROUNDS = Number(args.rounds);
const PAGE_REQUESTS = Number(args['page-requests']);
const WAITERS = Number(args.waiters);
const WAKES = Math.min(Number(args.wakes), WAITERS);

const port = await freePort();
const ORIGIN = `http://localhost:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'presence-approvals-bench-'));
const config = loadConfig({
  PRESENCE_DATA_DIR: dir,
  PRESENCE_DEV_TENANT: 'true',
  PRESENCE_DEV_ORIGIN: ORIGIN,
  PRESENCE_PUBLIC_ORIGIN: ORIGIN,
  PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
  PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
  PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
  PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0',
  LOG_LEVEL: 'silent',
});
const composed = await compose(config, false);
const { app, deps } = composed;
await app.listen({ host: '127.0.0.1', port });
const links = { publicOrigin: ORIGIN };

try {
  const tenantId = (await deps.store.tenants.list()).find((t) => t.name === 'development').id;
  const { key: apiKey, secret: key } = await createApiKey(
    deps,
    tenantId,
    { name: 'bench', scopes: ['approvals:write', 'approvals:read'] },
    OWNER_SCOPES,
  );
  const actor = { apiKeyId: apiKey.keyId };
  const people = {};
  for (const subject of ['verifier', 'a1', 'a2']) people[subject] = await enroll(tenantId, subject);
  const newApproval = (required = 2) =>
    createApproval(
      deps,
      tenantId,
      { action: { type: 'bench', n: randomBytes(8).toString('hex') }, approvers: ['a1', 'a2'], required },
      links,
      actor,
    );
  const tokenOf = (a) => a.approvalUrl.slice(`${ORIGIN}/approve/`.length);

  console.log(`approvals bench: SQLite, node ${process.version}, ${ROUNDS} rounds`);
  await pageFigures(tokenOf(await newApproval()));

  // CPU: interleaved rounds, so drift (JIT, GC, the neighbour's load) hits every kind alike.
  const cpu = { verify: 0, decision: 0, settling: 0 };
  const timed = async (kind, fn) => {
    const before = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(before);
    cpu[kind] += used.user + used.system;
  };
  for (let i = 0; i < ROUNDS + 20; i++) {
    const warm = i < 20;
    const approval = await newApproval();
    const token = tokenOf(approval);
    const run = warm ? (_k, fn) => fn() : timed;
    await run('verify', () => plainVerify(tenantId, people.verifier));
    await run('decision', () => decide(token, people.a1));
    await run('settling', () => decide(token, people.a2));
  }
  const per = (kind) => cpu[kind] / ROUNDS / 1000;
  console.log(`cpu per plain verify (ceiling): ${ms(per('verify'))}`);
  console.log(
    `cpu per approver decision: ${ms(per('decision'))} = ${(per('decision') / per('verify')).toFixed(2)}× a verify (target ≤ 1.5×)`,
  );
  console.log(
    `cpu per settling decision + approval set: ${ms(per('settling'))} = ${(per('settling') / per('verify')).toFixed(2)}× a verify`,
  );

  await longPollFigures(key, newApproval, tokenOf, people.a1);
} finally {
  await composed.close();
  rmSync(dir, { recursive: true, force: true });
}

async function pageFigures(token) {
  const pool = new Pool(ORIGIN, { connections: 16 });
  const first = await pool.request({ path: `/approve/${token}`, method: 'GET' });
  const html = Buffer.from(await first.body.arrayBuffer());
  let raw = html.length;
  let gzip = gzipSync(html, { level: 6 }).length;
  for (const asset of ['links.css', 'links.js', 'simplewebauthn-browser.js']) {
    const res = await pool.request({ path: `/links/assets/${asset}`, method: 'GET' });
    const body = Buffer.from(await res.body.arrayBuffer());
    raw += body.length;
    gzip += gzipSync(body, { level: 6 }).length;
  }
  const page = await ttfbOf(pool, `/approve/${token}`);
  const state = await ttfbOf(pool, `/approve/${token}/state`);
  await pool.close();
  console.log(`approval page: HTML ${html.length} B, with assets ${raw} B (gzip ${gzip} B)`);
  console.log(
    `approval page TTFB at 16 connections, ${PAGE_REQUESTS} requests: p50 ${ms(page.p50)}, p99 ${ms(page.p99)}, ${page.rate} pages/s`,
  );
  console.log(
    `its JSON state (same run, ceiling) at 16 connections: p50 ${ms(state.p50)}, p99 ${ms(state.p99)}, ${state.rate} answers/s`,
  );
}

async function ttfbOf(pool, path) {
  const ttfb = [];
  let next = 0;
  const worker = async () => {
    while (next++ < PAGE_REQUESTS) {
      const start = performance.now();
      const res = await pool.request({ path, method: 'GET' });
      ttfb.push(performance.now() - start);
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
      await res.body.dump();
    }
  };
  const wall = performance.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  const rate = (PAGE_REQUESTS / ((performance.now() - wall) / 1000)).toFixed(0);
  return { p50: q(ttfb, 0.5), p99: q(ttfb, 0.99), rate };
}

async function longPollFigures(key, newApproval, tokenOf, approver) {
  const approvals = [];
  for (let i = 0; i < WAITERS; i++) approvals.push(await newApproval(1));
  globalThis.gc?.();
  await sleep(500);
  const rssBefore = process.memoryUsage().rss;
  const child = fork(fileURLToPath(new URL('./waiters.mjs', import.meta.url)), [
    ORIGIN,
    key,
    JSON.stringify(approvals.map((a) => a.approvalId)),
  ]);
  const answered = new Map();
  child.on('message', (m) => {
    if (m.answered) answered.set(m.answered, m);
    if (m.failed) console.error(`waiter failed: ${m.error}`);
  });
  await new Promise((ok) => child.once('message', ok));
  await sleep(3000); // every request reaches the server and waits
  globalThis.gc?.();
  const rssHeld = process.memoryUsage().rss;
  const early = answered.size;
  const open = await new Promise((ok) => app.server.getConnections((_e, n) => ok(n)));
  console.log(
    `long poll: ${WAITERS} waiting requests, RSS +${((rssHeld - rssBefore) / 2 ** 20).toFixed(1)} MiB (target ≤ 50 MB), ${open} connections open, ${early} answered early`,
  );
  const wake = [];
  const afterDecided = [];
  for (const approval of approvals.slice(0, WAKES)) {
    const start = performance.timeOrigin + performance.now();
    await decide(tokenOf(approval), approver);
    const decided = performance.timeOrigin + performance.now();
    while (!answered.has(approval.approvalId)) await sleep(1);
    const at = answered.get(approval.approvalId).at;
    wake.push(at - start);
    afterDecided.push(Math.max(0, at - decided));
  }
  console.log(
    `long poll wake, ${WAKES} decisions (decision start → answer in the client): p50 ${ms(q(wake, 0.5))}, p99 ${ms(q(wake, 0.99))} (target ≤ 100 ms)`,
  );
  console.log(
    `  of which after the decision returned: p50 ${ms(q(afterDecided, 0.5))}, p99 ${ms(q(afterDecided, 0.99))}`,
  );
  child.send('exit');
  await new Promise((ok) => child.once('exit', ok));
}

async function enroll(tenantId, subject) {
  const passkey = new SoftwareAuthenticator({ rpId: 'localhost', origin: ORIGIN });
  const reg = await createRegistrationOptions(deps, tenantId, { subject });
  await registerCredential(deps, tenantId, {
    registrationId: reg.registrationId,
    credential: passkey.register({ challenge: reg.publicKey.challenge }),
  });
  return passkey;
}

async function plainVerify(tenantId, passkey) {
  const c = await createChallenge(deps, tenantId, {
    actionHashHex: randomBytes(32).toString('hex'),
    subject: 'verifier',
  });
  const r = await verifyPresence(deps, tenantId, {
    challengeId: c.challengeId,
    assertion: passkey.authenticate({ challenge: c.publicKey.challenge }),
  });
  if (r.decision !== 'PRESENCE_VERIFIED') throw new Error(`verify: ${r.decision}`);
}

async function decide(token, passkey) {
  const options = await startApprovalCeremony(deps, token, 'approve');
  const assertion = passkey.authenticate({ challenge: options.publicKey.challenge });
  const result = await decideApproval(deps, token, { challengeId: options.challengeId, assertion }, links);
  if (!result.recorded) throw new Error(`decision: ${result.decision} ${result.reason}`);
}
