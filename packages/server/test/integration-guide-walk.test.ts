/**
 * docs/integration.md, section 0 ("The first hour"), walked as a newcomer would (issue 36): the built
 * service started as the README says (`npm start`: dist/main.js, a fresh SQLite data directory, a
 * free PORT, nothing of ours in the environment), its API key read from the start block, then every
 * block of the guide after a `first-hour` comment, as written: npm installs the SDK from the service's
 * own GET /sdk/presence-sdk.tgz into an empty project (dependencies from the npm cache when there),
 * setup.mjs allows the page's origin and subscribes to receipts, app.mjs serves page.html, which
 * Chromium with a virtual authenticator uses to enroll and approve, the app checks the webhook's
 * signature with the SDK, and check.sh verifies the receipt offline (verifyReceipt with keys.json)
 * and a pack with `presence-verify`. A wrong step in the guide fails here.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, openWithAuthenticator } from './browser/browser-harness.js';
import { freePort, serviceBuilt } from './support/server-process.js';
import { shellEnv, waitForOutput } from './support/developer-shell.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const execFileAsync = promisify(execFile);
const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'presence-first-hour-'));
let browser: Browser | undefined;

/** The blocks of docs/integration.md marked `<!-- first-hour: <file> -->`, by file name. */
function firstHourBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/<!-- first-hour: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g))
    blocks.set(m[1]!, `${m[2]!}\n`);
  return blocks;
}

/** Starts `node args…` in `cwd`; `output()` is everything it printed so far. */
function start(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  return { child, output: () => text };
}

afterAll(async () => {
  await browser?.close();
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r).kill('SIGTERM')) : null)),
  );
  rmSync(dir, { recursive: true, force: true });
});

it('finds the first-hour blocks of the guide, each once', () => {
  const blocks = firstHourBlocks(readFileSync(`${ROOT}docs/integration.md`, 'utf8'));
  expect([...blocks.keys()].sort()).toEqual(
    ['app.mjs', 'check-receipt.mjs', 'check.sh', 'install.sh', 'page.html', 'setup.mjs'].sort(),
  );
  const marked = readFileSync(`${ROOT}docs/integration.md`, 'utf8').match(/<!-- first-hour: /g);
  expect(marked).toHaveLength(blocks.size);
});

describe.skipIf(!serviceBuilt('integration-guide-walk') || chromiumMissing())(
  'docs/integration.md: the first hour, as written',
  () => {
    it('installs the served SDK, enrolls and approves in Chromium, receives a signed webhook, checks the receipt offline', async () => {
      const blocks = firstHourBlocks(readFileSync(`${ROOT}docs/integration.md`, 'utf8'));
      const block = (name: string) => blocks.get(name)!;

      // 1. `npm start`, as the README says; the start block gives the origin and the API key.
      const service = start(
        [MAIN],
        ROOT,
        shellEnv({ PORT: String(await freePort()), PRESENCE_DATA_DIR: join(dir, 'data') }),
      );
      const [, serviceOrigin] = await waitForOutput(
        service.output,
        /Presence is running at (http:\/\/localhost:\d+)/,
        60_000,
      );
      const [, apiKey] = await waitForOutput(service.output, /API key\s+(presence_\S+)/);
      const app = join(dir, 'payouts');
      mkdirSync(app);
      const appPort = await freePort();
      const appOrigin = `http://localhost:${appPort}`;
      const env = shellEnv({
        PRESENCE_URL: serviceOrigin!,
        PRESENCE_API_KEY: apiKey!,
        // Offline where the npm cache has the packages; no scripts, audit or fund calls.
        npm_config_prefer_offline: 'true',
        npm_config_ignore_scripts: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      });
      const sh = (name: string, extra: Record<string, string> = {}) =>
        execFileAsync('bash', ['-euo', 'pipefail', '-c', block(name)], {
          cwd: app,
          env: { ...env, ...extra },
          timeout: 240_000,
        });
      for (const file of ['setup.mjs', 'app.mjs', 'page.html', 'check-receipt.mjs'])
        writeFileSync(join(app, file), block(file));

      // 2. The SDK from the service itself, and the browser helper.
      await sh('install.sh');
      const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
      expect(manifest.dependencies['@presence/sdk']).toBe(`${serviceOrigin}/sdk/presence-sdk.tgz`);

      // 3. The page's origin in the policy, and the webhook endpoint.
      const setup = await execFileAsync(process.execPath, ['setup.mjs'], {
        cwd: app,
        env: { ...env, APP_ORIGIN: appOrigin },
      });
      const secret = /^PRESENCE_WEBHOOK_SECRET=(whsec_\S+)$/m.exec(setup.stdout)?.[1];
      expect(secret, setup.stdout + setup.stderr).toBeDefined();

      // 4. The app, and the page in Chromium with a virtual authenticator.
      const running = start(['app.mjs'], app, {
        ...env,
        PORT: String(appPort),
        PRESENCE_WEBHOOK_SECRET: secret!,
      });
      await waitForOutput(running.output, /listening on/);
      browser = await launchChromium();
      const { page, log } = await openWithAuthenticator(browser);
      await page.goto(`${appOrigin}/`);
      const status = page.locator('#status');
      await page.click('#enroll');
      await expect
        .poll(async () => (await status.textContent()) ?? '', { timeout: 30_000 })
        .toMatch(/enrolled|Failed/);
      expect(await status.textContent(), log.join('\n') + running.output()).toBe('Passkey enrolled.');
      await page.click('#approve');
      await expect
        .poll(async () => (await status.textContent()) ?? '', { timeout: 30_000 })
        .toMatch(/Approved|Not approved|Failed/);
      const shown = (await status.textContent()) ?? '';
      const receiptId = /^Approved: receipt (rct_\w+)$/.exec(shown)?.[1];
      expect(receiptId, `${shown}\n${log.join('\n')}\n${running.output()}`).toBeDefined();
      expect(running.output()).toMatch(new RegExp(`payout po_\\d+ executed, receipt ${receiptId}`));

      // The service's worker delivers receipt.created; the app checks its signature with the SDK.
      await waitForOutput(
        running.output,
        new RegExp(`webhook receipt\\.created ${receiptId} signature verified`),
      );
      const forged = await fetch(`${appOrigin}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{"type":"receipt.created"}',
      });
      expect(forged.status).toBe(400);
      await waitForOutput(running.output, /webhook refused: .*signature/i);

      // 5. Offline: the receipt with verifyReceipt and keys.json, the day's pack with presence-verify.
      const checked = await sh('check.sh', { RECEIPT_ID: receiptId! });
      expect(checked.stdout).toContain(`receipt ${receiptId} is valid`);
      expect(checked.stdout).not.toMatch(/FAIL/);
      const receipt = JSON.parse(readFileSync(join(app, 'receipt.json'), 'utf8'));
      receipt.receipt.subject = 'someone_else';
      writeFileSync(join(app, 'receipt.json'), JSON.stringify(receipt));
      const tampered = await execFileAsync(process.execPath, ['check-receipt.mjs'], { cwd: app, env }).then(
        () => 0,
        (error: { code: number; stdout: string }) => (
          expect(error.stdout).toContain('NOT valid'),
          error.code
        ),
      );
      expect(tampered).toBe(1);
      await page.context().close();
    }, 420_000);
  },
);
