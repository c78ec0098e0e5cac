/**
 * docs/webhooks.md "Try it locally", as a reader runs it: the built service started like
 * `npm start` (development defaults: no NODE_ENV, no PRESENCE_WEBHOOK_ALLOW_NETS), the
 * development tenant's printed API key, examples/webhook-receiver/receiver.mjs on loopback, an
 * endpoint registered over HTTP and a test event that the service's own worker delivers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, serviceBuilt } from './support/server-process.js';
import { shellEnv, waitForOutput } from './support/developer-shell.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const RECEIVER = fileURLToPath(new URL('../../../examples/webhook-receiver/receiver.mjs', import.meta.url));
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'presence-try-locally-'));

/** Starts a process and resolves once its output matches `ready`; `output()` is all of it so far. */
async function start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(process.execPath, args, { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  const seen = new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer) => {
      text += chunk.toString();
      if (ready.test(text)) resolve();
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${text}`)));
  });
  await seen;
  return { output: () => text };
}

afterAll(async () => {
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r).kill('SIGTERM')) : null)),
  );
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!serviceBuilt('example-webhook-receiver'))('docs/webhooks.md: try it locally', () => {
  it('the development service delivers a verified test event to the example receiver on loopback', async () => {
    const port = await freePort();
    const env = {
      PRESENCE_DATA_DIR: join(dir, 'data'),
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    };
    const service = await start(
      [MAIN],
      shellEnv({ ...env, HOST: '127.0.0.1', PORT: String(port) }),
      /listening/,
    );
    const [, apiKey] = await waitForOutput(service.output, /API key\s+((?:presence|prs)_\S+)/);
    const api = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, any> }));

    const receiverPort = await freePort();
    const hookUrl = `http://127.0.0.1:${receiverPort}/hooks`;
    const created = await api('/v1/webhooks/endpoints', { url: hookUrl, events: ['receipt.created'] });
    expect(created.status).toBe(201);
    const receiver = await start(
      [RECEIVER],
      shellEnv({ PRESENCE_WEBHOOK_SECRET: created.json.secret, PORT: String(receiverPort) }),
      /listening/,
    );
    const sent = await api(`/v1/webhooks/endpoints/${created.json.endpoint.endpointId}/test`, {});
    expect(sent.status).toBe(202);
    const [line] = await waitForOutput(receiver.output, /verified webhook\.test (dlv_\S+)/);
    expect(line).toContain(sent.json.delivery.deliveryId);
    expect(receiver.output()).not.toMatch(/refused/);
  }, 60_000);
});
