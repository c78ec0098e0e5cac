/**
 * Webhook workers as real server processes (the built service): two processes on one PostgreSQL
 * database never send the same delivery twice and together respect the per-endpoint limit; a
 * server killed with SIGKILL mid-attempt leaves the delivery to a restarted server, which
 * delivers it after the lease. Needs `npx tsc -b packages/server` (npm test builds first).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from './support/server-process.js';
import { processDialects, useServerProcesses } from './support/server-processes.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

for (const { name: dialect, enabled } of await processDialects('webhook process tests')) {
  describe.skipIf(!enabled)(`webhook worker processes on ${dialect}`, () => {
    const group = useServerProcesses(dialect, {
      name: 'wh',
      env: {
        PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
        PRESENCE_WEBHOOK_TIMEOUT_MS: '1000',
        PRESENCE_WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      },
    });
    const receivers: WebhookReceiver[] = [];
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.close()));
    });
    const start = () => group.start();
    const call = async (server: ServerProcess, method: string, path: string, body?: unknown) =>
      (await group.request(server, method, path, body)).json;
    const endpointFor = async (server: ServerProcess, url: string) =>
      (await call(server, 'POST', '/v1/webhooks/endpoints', { url, events: ['receipt.created'] })).endpoint
        .id as string;

    it.skipIf(dialect !== 'postgres')(
      'two processes deliver every event exactly once, within the per-endpoint limit',
      async () => {
        const receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 15 }));
        receivers.push(receiver);
        const [a, b] = [await start(), await start()];
        const id = await endpointFor(a, receiver.url);
        const sent: string[] = [];
        for (let i = 0; i < 120; i++) {
          sent.push((await call(i % 2 ? a : b, 'POST', `/v1/webhooks/endpoints/${id}/test`, {})).delivery.id);
        }
        await receiver.waitFor(120, 30_000);
        await new Promise((r) => setTimeout(r, 1000));
        const ids = receiver.received.map((x) => String(x.headers['x-presence-delivery-id']));
        expect(ids).toHaveLength(120);
        expect(new Set(ids)).toEqual(new Set(sent));
        expect(receiver.maxConcurrent).toBeLessThanOrEqual(4);
        await Promise.all([a.stop(), b.stop()]);
      },
      60_000,
    );

    it('completes a delivery after the server was killed with SIGKILL mid-attempt', async () => {
      const receiver = await startWebhookReceiver((_req, i) => (i === 0 ? 'hang' : { status: 200 }));
      receivers.push(receiver);
      const first = await start();
      const id = await endpointFor(first, receiver.url);
      const deliveryId = (await call(first, 'POST', `/v1/webhooks/endpoints/${id}/test`, {})).delivery.id;
      await receiver.waitFor(1);
      first.child.kill('SIGKILL');
      await new Promise((resolve) => first.child.once('exit', resolve));
      const second = await start();
      await receiver.waitFor(2, 20_000);
      expect(receiver.received.map((x) => x.headers['x-presence-delivery-id'])).toEqual([
        deliveryId,
        deliveryId,
      ]);
      // The second attempt's outcome is written after the receiver answered it: wait for it.
      let delivery: any;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
        ({ delivery } = await call(second, 'GET', `/v1/webhooks/deliveries/${deliveryId}`));
        if (delivery.status === 'succeeded') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(delivery.status).toBe('succeeded');
      expect(delivery.attempts.map((a: any) => a.error ?? a.statusCode)).toEqual([
        expect.stringMatching(/^interrupted/),
        200,
      ]);
    }, 60_000);
  });
}
