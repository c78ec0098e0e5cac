/**
 * Writes the committed presence.receipt.v1 fixtures (ADR 0008) into
 * packages/sdk/test/fixtures/receipt-v1/: a real receipt issued by the real service for a real
 * assertion from Chromium's WebAuthn virtual authenticator (the demo page's enroll and approve),
 * exactly as GET /v1/presence/receipts/{id} served it; the keys.json served then; and a real
 * export pack holding it. Run once, when the fixtures are first made; never to "update" them
 * (they exist to prove that old evidence keeps verifying):
 *   npm run build && npx vite-node packages/server/test/support/make-v1-fixtures.ts
 */
import { writeFileSync } from 'node:fs';
import { createApiKey } from '../../src/domain/api-keys/create-api-key.js';
import { OWNER_SCOPES } from '../../src/domain/api-keys/check-grantable-scopes.js';
import { launchChromium, openWithAuthenticator, startService } from '../browser/browser-harness.js';

const OUT = new URL('../../../sdk/test/fixtures/receipt-v1/', import.meta.url);

const service = await startService();
const browser = await launchChromium();
try {
  const { page, context } = await openWithAuthenticator(browser);
  await page.goto(`${service.origin}/demo`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  await page.click('#enroll-button');
  await page.waitForSelector('#enroll-status[data-kind="ok"]', { timeout: 20_000 });
  await page.click('#approve-button');
  await page.waitForSelector('#decision[data-outcome="verified"]', { timeout: 25_000 });
  const receiptId = ((await page.textContent('#receipt-id')) ?? '').trim();
  await context.close();

  const demo = (await (await fetch(`${service.origin}/demo/api/receipts/${receiptId}`)).json()) as {
    receipt: { tenantId: string; issuedAt: string };
  };
  const { secret } = await createApiKey(
    service.composed.deps,
    demo.receipt.tenantId,
    {
      name: 'fixtures',
      scopes: ['receipts:read', 'receipts:export'],
    },
    OWNER_SCOPES,
  );
  const get = (path: string) =>
    fetch(`${service.origin}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  const signed = Buffer.from(await (await get(`/v1/presence/receipts/${receiptId}`)).arrayBuffer());
  const keys = Buffer.from(await (await get('/.well-known/presence/keys.json')).arrayBuffer());
  const issued = Date.parse(demo.receipt.issuedAt);
  const from = new Date(issued - 60_000).toISOString();
  const to = new Date(issued + 60_000).toISOString();
  const pack = await get(`/v1/presence/receipts/export?from=${from}&to=${to}`);
  if (pack.status !== 200) throw new Error(`export failed: ${pack.status} ${await pack.text()}`);
  writeFileSync(new URL('signed-receipt.json', OUT), signed);
  writeFileSync(new URL('keys.json', OUT), keys);
  writeFileSync(new URL('pack.zip', OUT), Buffer.from(await pack.arrayBuffer()));
  console.log(`wrote receipt ${receiptId}, keys.json and pack.zip to ${OUT.pathname}`);
} finally {
  await browser.close();
  await service.close();
}
