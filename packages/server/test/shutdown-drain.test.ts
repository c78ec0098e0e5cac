/**
 * The drain time is a bound: a webhook attempt still hanging when PRESENCE_SHUTDOWN_DRAIN_MS runs
 * out does not hold the process; it logs `drain time exceeded` and exits 1 (the delivery's lease
 * expires and another instance attempts it again). Runs the built service on each database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import {
  createTenantWithCli,
  createTestDatabase,
  serviceBuilt,
  startServerProcess,
} from './support/server-process.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

const built = serviceBuilt('shutdown drain test');

describeEachDialect('shutdown with work that outlasts the drain time', (dialect) => {
  if (!built) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-drain-'));
  let database: { url: string; drop(): Promise<void> } | undefined;
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops after PRESENCE_SHUTDOWN_DRAIN_MS with a last line saying so', async () => {
    if (dialect === 'postgres') database = await createTestDatabase('presence_drain');
    const env: Record<string, string> = {
      ...(database && { DATABASE_URL: database.url }),
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
      PRESENCE_WEBHOOK_TIMEOUT_MS: '30000',
      PRESENCE_SHUTDOWN_DRAIN_MS: '1000',
      LOG_LEVEL: 'info',
    };
    const { apiKey } = createTenantWithCli('d', env);
    const receiver = await startWebhookReceiver(() => 'hang');
    const server = await startServerProcess(env);
    try {
      const post = (path: string) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(
            path.endsWith('/test') ? {} : { url: receiver.url, events: ['receipt.created'] },
          ),
        }).then((r) => r.json() as Promise<any>);
      const endpoint = await post('/v1/webhooks/endpoints');
      await post(`/v1/webhooks/endpoints/${endpoint.endpoint.id}/test`);
      await receiver.waitFor(1, 20_000);
      const signalled = Date.now();
      const code = await server.stop('SIGTERM');
      const took = Date.now() - signalled;
      expect(code).toBe(1);
      expect(took).toBeLessThan(10_000);
      expect(server.output().trim().split('\n').at(-1)).toContain('drain time exceeded');
    } finally {
      await server.stop('SIGKILL');
      await receiver.close();
    }
  }, 120_000);
});
