/** Shared steps of the webhook suites: endpoints through the API, the worker driven by hand. */
import { createHmac } from 'node:crypto';
import type { WebhookJob } from '../../src/worker/deliver-webhooks.js';
import { startedForSuite } from './each-dialect.js';
import { startTestService, type TestService } from './test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

export async function startWebhookService(dialect: 'sqlite' | 'postgres'): Promise<TestService> {
  return startTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'], webhookTimeoutMs: 2000 });
}

/** A webhook test service for the enclosing suite, stopped by `stop` (default: the worker, then the service). */
export function useWebhookService(
  dialect: 'sqlite' | 'postgres',
  stop: (s: TestService) => Promise<void> = closeWebhookService,
): TestService {
  return startedForSuite(() => startWebhookService(dialect), stop);
}

/** Stops the webhook worker, then the service. */
export async function closeWebhookService(s: TestService): Promise<void> {
  await s.composed.deps.webhooks.close();
  await s.close();
}

export function webhookJob(s: TestService): WebhookJob {
  const job = s.composed.jobs.find((j) => j.name === 'webhooks');
  if (!job) throw new Error('the webhooks job is not registered in compose.ts');
  return job as WebhookJob;
}

/** Runs the worker until what is due now has been attempted and recorded. */
export async function deliverDue(s: TestService, rounds = 2): Promise<void> {
  const job = webhookJob(s);
  for (let i = 0; i < rounds; i++) {
    await job.run();
    await job.drain();
  }
}

export async function createEndpoint(
  s: TestService,
  url: string,
  events: string[] = ['credential.registered'],
  key?: string,
): Promise<{ id: string; secret: string }> {
  const res = await s.request('POST', '/v1/webhooks/endpoints', { url, events }, key);
  if (res.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(res.json)}`);
  return { id: res.json.endpoint.id, secret: res.json.secret };
}

export async function sendTest(s: TestService, endpointId: string): Promise<string> {
  const res = await s.request('POST', `/v1/webhooks/endpoints/${endpointId}/test`, {});
  if (res.status !== 202) throw new Error(`test event refused: ${JSON.stringify(res.json)}`);
  return res.json.delivery.id;
}

export async function deliveriesOf(s: TestService, endpointId: string): Promise<any[]> {
  const res = await s.request('GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=100`);
  if (res.status !== 200) throw new Error(`deliveries: ${JSON.stringify(res.json)}`);
  return res.json.data;
}

/** The contract's signature, computed here independently of the service's code. */
export function expectedSignature(
  secret: string,
  timestamp: string,
  deliveryId: string,
  body: string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.${deliveryId}.${body}`)
    .digest('hex');
}

/** The receivers a suite starts, closed together with its service (after the worker drains). */
export function receiverPool() {
  const receivers: WebhookReceiver[] = [];
  return {
    start: async (...args: Parameters<typeof startWebhookReceiver>): Promise<WebhookReceiver> => {
      const r = await startWebhookReceiver(...args);
      receivers.push(r);
      return r;
    },
    closeWith: async (s: TestService): Promise<void> => {
      await Promise.all(receivers.map((r) => r.close()));
      await webhookJob(s).drain();
      await s.composed.deps.webhooks.close();
      await s.close();
    },
  };
}
