/** A real HTTP receiver on 127.0.0.1 for webhook tests: records every request, answers as told. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What to do with the n-th request (0-based): answer, or hang until the connection closes. */
export type Responder = (
  request: ReceivedWebhook,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  respond: Responder;
  /** The most requests that were open at once. */
  maxConcurrent: number;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  respond: Responder = () => ({ status: 200 }),
  port = 0,
): Promise<WebhookReceiver> {
  const receiver = { received: [] as ReceivedWebhook[], respond, maxConcurrent: 0 } as WebhookReceiver;
  const hanging = new Set<ServerResponse>();
  let open = 0;
  const server = createServer((req, res) => {
    open++;
    receiver.maxConcurrent = Math.max(receiver.maxConcurrent, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      const index = receiver.received.push(got) - 1;
      const answer = receiver.respond(got, index);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      setTimeout(() => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? 'ok');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  receiver.port = address.port;
  receiver.url = `http://127.0.0.1:${address.port}`;
  receiver.waitFor = async (count, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (receiver.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} webhooks, got ${receiver.received.length}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
