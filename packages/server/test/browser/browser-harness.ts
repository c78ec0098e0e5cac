import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { compose, type Composed } from '../../src/compose.js';
import { loadConfig } from '../../src/config/load-config.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether the browser suites run. In CI a missing Chromium is a failure (the suite must not pass
 * by skipping); elsewhere the suite is skipped with a printed reason.
 */
export function chromiumMissing(): boolean {
  if (existsSync(CHROMIUM_PATH)) return false;
  if (process.env['CI'] === 'true') return false;
  console.warn(
    `browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium)`,
  );
  return true;
}

/** A free TCP port on the loopback interface, so the origin is known before the service starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface RunningService {
  composed: Composed;
  origin: string;
  close(): Promise<void>;
}

/** The real service in-process: fresh data dir and SQLite file, development tenant for the origin. */
export async function startService(): Promise<RunningService> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'presence-browser-'));
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: 'true',
    PRESENCE_DEV_ORIGIN: origin,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
  });
  const composed = await compose(config, false);
  await composed.app.listen({ host: '127.0.0.1', port });
  return {
    composed,
    origin,
    async close() {
      await composed.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} is required for the browser tests (CI=true)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface AuthenticatorPage {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** What the page logged to its console and every page error, for failure messages. */
  log: string[];
}

/** A fresh browser context whose page has a DevTools virtual platform authenticator with UV. */
export async function openWithAuthenticator(browser: Browser): Promise<AuthenticatorPage> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const log: string[] = [];
  page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page, cdp, authenticatorId, log };
}
