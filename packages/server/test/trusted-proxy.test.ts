/**
 * The client address behind one trusted proxy, on SQLite and on PostgreSQL: a real server process
 * (the built `dist/`) behind a real HTTP proxy in this test that appends the address it saw to
 * `X-Forwarded-For`, as HAProxy's `option forwardfor` does. The client connects from 127.0.0.2 and
 * writes a new forged address in every request; with `PRESENCE_TRUST_PROXY=1` the
 * failed-authentication limiter counts them all against 127.0.0.2, and the request logs name
 * 127.0.0.2, never a forged address. The console's anonymous sign-in limiter does the same. With
 * `true` the service warns at start and says what to set instead. The shipped deploy/haproxy.cfg
 * runs in front of the same server and must give the same result (skipped, saying so, when
 * HAProxy is not installed; in CI its absence is a failure: .ci/run installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  startServerProcess,
  type ServerProcess,
} from './support/server-process.js';
import { processDialects } from './support/server-processes.js';

const LIMIT = 3;
const CLIENT_ADDRESS = '127.0.0.2';
const HAPROXY_CLIENT_ADDRESS = '127.0.0.3';
const SIGN_IN_CLIENT_ADDRESS = '127.0.0.4';

/** Whether HAProxy is installed: the shipped deploy/haproxy.cfg is then run too (else skipped, saying so). */
const haproxyInstalled = spawnSync('haproxy', ['-v']).status === 0;
if (!haproxyInstalled) {
  const reason = 'trusted proxy: the deploy/haproxy.cfg case needs haproxy, which is not installed';
  if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it (.ci/run installs it)`);
  console.warn(`${reason}: skipped`);
}

/**
 * deploy/haproxy.cfg as shipped, listening on a free local port in front of one server process
 * (its two compose servers replaced by that one); resolves once it routes to the server.
 */
async function startHaproxy(target: string, dir: string) {
  const port = await freePort();
  const upstream = new URL(target);
  const shipped = readFileSync(new URL('../../../deploy/haproxy.cfg', import.meta.url), 'utf8');
  const config = shipped
    .replace(/^ {2}bind :8080$/m, `  bind 127.0.0.1:${port}`)
    .replace(/^ {2}server presence-1 .*$/m, `  server presence-1 ${upstream.host} check`)
    .replace(/^ {2}server presence-2 .*$/m, '');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore' });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { port, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('haproxy did not route to the server within 20 s');
}

/** A reverse proxy to `target` that appends the peer it saw to X-Forwarded-For (keeping what came). */
function startAppendingProxy(target: string): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const seen = req.socket.remoteAddress!.replace(/^::ffff:/, '');
    const forwarded = req.headers['x-forwarded-for'];
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      'x-forwarded-for': forwarded === undefined ? seen : `${String(forwarded)}, ${seen}`,
    };
    const out = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A GET with a wrong key through the proxy from `from`, or the console's anonymous sign-in POST. */
function forgedRequest(
  proxyPort: number,
  forged: string,
  from = CLIENT_ADDRESS,
  path = '/v1/keys',
): Promise<number> {
  const signIn = path === SIGN_IN;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: proxyPort,
        localAddress: from,
        path,
        method: signIn ? 'POST' : 'GET',
        headers: signIn
          ? { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', 'x-forwarded-for': forged }
          : { authorization: `Bearer presence_${'x'.repeat(40)}`, 'x-forwarded-for': forged },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(signIn ? '{}' : undefined);
  });
}

const SIGN_IN = '/console/api/sign-in/options';

/** The remote addresses of the first `count` logged /v1/keys requests (the pipe may lag the answers). */
async function requestLines(server: ServerProcess, count: number, url = '/v1/keys'): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes(`"url":"${url}"`))
      .map((line) => (JSON.parse(line) as { req: { remoteAddress: string } }).req.remoteAddress);
    if (lines.length >= count || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const forgedAddress = (i: number) => `198.51.100.${i + 1}`;

for (const { name: dialect, enabled } of await processDialects('trusted proxy')) {
  describe.skipIf(!enabled)(`the client address behind a trusted proxy, on ${dialect}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-proxy-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: String(LIMIT),
      PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE: String(LIMIT),
      LOG_LEVEL: 'info',
    };
    let server: ServerProcess | undefined;
    let proxy: Server | undefined;
    let dropDatabase = async (): Promise<void> => {};
    beforeAll(async () => {
      if (dialect === 'postgres') {
        const database = await createTestDatabase('presence_proxy');
        env['DATABASE_URL'] = database.url;
        dropDatabase = database.drop;
      }
      server = await startServerProcess({ ...env, PRESENCE_TRUST_PROXY: '1' });
      proxy = await startAppendingProxy(server.url);
    });
    afterAll(async () => {
      await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
      await server?.stop();
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('limits failed authentication by the address the proxy saw, and logs that address', async () => {
      const port = (proxy!.address() as AddressInfo).port;
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i++) statuses.push(await forgedRequest(port, forgedAddress(i)));
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // The request lines of these calls (the readiness polls before them came straight from 127.0.0.1).
      const logged = await requestLines(server!, LIMIT + 2);
      expect(logged).toHaveLength(LIMIT + 2);
      expect(new Set(logged)).toEqual(new Set([CLIENT_ADDRESS]));
      for (let i = 0; i < LIMIT + 2; i++) expect(server!.output()).not.toContain(forgedAddress(i));
      expect(server!.output()).not.toContain('PRESENCE_TRUST_PROXY=true');
    });

    it("limits the console's anonymous sign-in by the address the proxy saw, and logs that address", async () => {
      const port = (proxy!.address() as AddressInfo).port;
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i++) {
        statuses.push(await forgedRequest(port, `203.0.113.${i + 1}`, SIGN_IN_CLIENT_ADDRESS, SIGN_IN));
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const logged = await requestLines(server!, LIMIT + 2, SIGN_IN);
      expect(logged).toHaveLength(LIMIT + 2);
      expect(new Set(logged)).toEqual(new Set([SIGN_IN_CLIENT_ADDRESS]));
      expect(server!.output()).not.toContain('203.0.113.');
    });

    it.skipIf(!haproxyInstalled)(
      'the shipped deploy/haproxy.cfg: forged headers never reach the limiter or the logs',
      async () => {
        const haproxy = await startHaproxy(server!.url, dataDir);
        try {
          const statuses: number[] = [];
          for (let i = 0; i < LIMIT + 2; i++) {
            const forged = `192.0.2.${i + 1}`;
            statuses.push(
              await forgedRequest(haproxy.port, forged, HAPROXY_CLIENT_ADDRESS, '/v1/keys?via=haproxy'),
            );
          }
          expect(statuses).toEqual([401, 401, 401, 429, 429]);
          const logged = await requestLines(server!, LIMIT + 2, '/v1/keys?via=haproxy');
          expect(logged).toHaveLength(LIMIT + 2);
          expect(new Set(logged)).toEqual(new Set([HAPROXY_CLIENT_ADDRESS]));
          expect(server!.output()).not.toContain('192.0.2.');
        } finally {
          haproxy.stop();
        }
      },
    );

    it('`true` still works but warns at start with what to set instead', async () => {
      const trusting = await startServerProcess({
        ...env,
        PRESENCE_DATA_DIR: join(dataDir, 'all'),
        PRESENCE_TRUST_PROXY: 'true',
      });
      try {
        const warning = trusting
          .output()
          .split('\n')
          .find((line) => line.includes('PRESENCE_TRUST_PROXY=true'));
        expect(warning).toBeDefined();
        expect(JSON.parse(warning!)).toMatchObject({ level: 40 });
        expect(warning).toContain('PRESENCE_TRUST_PROXY=1');
      } finally {
        await trusting.stop();
      }
    });
  });
}
