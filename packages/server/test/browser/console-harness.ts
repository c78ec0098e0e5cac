/**
 * The console's browser tests: the real service on a fresh SQLite file or PostgreSQL schema, its
 * background jobs running (webhook delivery), listening on localhost; axe-core and screenshots.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { describe } from 'vitest';
import { composeWith, depsFromStore, type Composed } from '../../src/compose.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startedForSuite } from '../../src/storage/each-dialect.js';
import type { Dialect } from '../../src/storage/open-database.js';
import { DIALECTS, openTestStore, pgAvailable } from '../../src/storage/testing.js';
import { runJobs } from '../../src/worker/run-jobs.js';
import { chromiumMissing, freePort, launchChromium } from './browser-harness.js';

export interface ConsoleService {
  composed: Composed;
  origin: string;
  devTenantId: string;
  close(): Promise<void>;
}

export async function startConsoleService(dialect: Dialect): Promise<ConsoleService> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'presence-console-browser-'));
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: 'true',
    PRESENCE_DEV_ORIGIN: origin,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
  });
  const testStore = await openTestStore(dialect);
  const deps = await depsFromStore(testStore.store, config.masterKey, undefined, {
    allowNets: ['127.0.0.0/8'],
    timeoutMs: 5000,
  });
  const composed = await composeWith(deps, config, false);
  await composed.app.listen({ host: '127.0.0.1', port });
  const jobs = runJobs(composed.jobs, false);
  const devTenantId = (await deps.store.tenants.list()).find((t) => t.name === 'development')!.id;
  return {
    composed,
    origin,
    devTenantId,
    async close() {
      await jobs.stop();
      await composed.app.close();
      await deps.webhooks.close();
      await testStore.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core in the page (evaluated through DevTools, so the page's CSP does not block it). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id as string,
      impact: v.impact as string | null,
      help: v.help as string,
      nodes: (v.nodes as { html: string }[]).slice(0, 3).map((n) => n.html),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Not committed (see .gitignore): looked at by people after a run. */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../../../test-output/console-screens/', import.meta.url),
);

export const WIDTHS = { desktop: { width: 1280, height: 900 }, narrow: { width: 390, height: 844 } } as const;

/** Full-page screenshots at desktop and narrow widths; restores the desktop viewport. */
export async function screenshots(page: Page, name: string, dialect: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${dialect}-${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(WIDTHS.desktop);
}

const postgresReady = await pgAvailable();

/**
 * One console suite in Chromium per dialect, `describe(title(dialect))`, skipped without Chromium
 * (or PostgreSQL, for its half): the console service and the browser start before its tests and
 * close after them.
 */
export function describeConsoleInChromium(
  title: (dialect: Dialect) => string,
  fn: (suite: { service: ConsoleService; browser: Browser; dialect: Dialect }) => void,
): void {
  for (const dialect of DIALECTS) {
    describe.skipIf(chromiumMissing() || (dialect === 'postgres' && !postgresReady))(title(dialect), () => {
      const service = startedForSuite(
        () => startConsoleService(dialect),
        (s) => s.close(),
      );
      const browser = startedForSuite(launchChromium, (b) => b.close());
      fn({ service, browser, dialect });
    });
  }
}

/** The console's flash message once it shows: `ok: …` or `error: …`. */
export async function flash(page: Page): Promise<string> {
  const box = page.locator('#flash[data-kind="ok"], #flash[data-kind="error"]');
  await box.waitFor({ timeout: 25_000 });
  return `${await box.getAttribute('data-kind')}: ${await box.textContent()}`;
}
