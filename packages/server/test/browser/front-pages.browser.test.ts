/**
 * GET / and /docs in Chromium at desktop and phone widths: the reference renders (Redoc, from our
 * origin), no Content-Security-Policy violation at all (Redoc's CDN logo is pointed at a data URL
 * when we serve its bundle), no request to another origin, no page error.
 * Screenshots go to test-output/front-pages/ for people to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, startService, type RunningService } from './browser-harness.js';

const SCREENS = fileURLToPath(new URL('../../../../test-output/front-pages/', import.meta.url));
const WIDTHS = { desktop: { width: 1280, height: 900 }, narrow: { width: 390, height: 844 } } as const;

interface Watched {
  page: Page;
  problems: string[];
  foreign: string[];
}

async function watch(
  browser: Browser,
  origin: string,
  size: { width: number; height: number },
): Promise<Watched> {
  const page = await browser.newPage({ viewport: size });
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  // Requests answered by another origin (a request the CSP refused never gets an answer).
  page.on('requestfinished', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
  });
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) =>
      console.error('Content Security Policy violation: ' + e.violatedDirective + ' ' + e.blockedURI));`,
  });
  return { page, problems, foreign };
}

describe.skipIf(chromiumMissing())('front pages in Chromium', () => {
  let service: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startService();
    browser = await launchChromium();
    mkdirSync(SCREENS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const [label, size] of Object.entries(WIDTHS)) {
    it(`GET / links every door, at ${label} width`, async () => {
      const { page, problems, foreign } = await watch(browser, service.origin, size);
      await page.goto(`${service.origin}/`);
      for (const name of ['Console', 'Demo', 'API reference', 'Problem codes'])
        expect(await page.getByRole('link', { name, exact: true }).first().isVisible()).toBe(true);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SCREENS, `home-${label}.png`), fullPage: true });
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
      await page.close();
    }, 60_000);

    it(`/docs renders the reference without a CSP violation, at ${label} width`, async () => {
      const { page, problems, foreign } = await watch(browser, service.origin, size);
      const started = Date.now();
      await page.goto(`${service.origin}/docs`);
      await page.waitForSelector('h1:has-text("Presence API")', { timeout: 30_000 });
      const renderedMs = Date.now() - started;
      const operation = page.locator('h2', {
        hasText: 'Issue a single-use challenge bound to an action hash',
      });
      await operation.first().scrollIntoViewIfNeeded({ timeout: 10_000 });
      await page.screenshot({ path: join(SCREENS, `docs-${label}.png`) });
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
      expect(await page.title()).toBe('Presence API reference');
      console.info(`/docs rendered at ${label} width in ${renderedMs} ms`);
      await page.close();
    }, 60_000);
  }
});
