/**
 * A webhook receiver to try deliveries locally: verifies each request with the endpoint secret
 * (X-PRESENCE or Standard Webhooks signature), prints one line per delivery, answers 204 (400 when
 * the signature does not verify). See docs/webhooks.md, "Try it locally".
 *
 *   PRESENCE_WEBHOOK_SECRET=whsec_… node examples/webhook-receiver/receiver.mjs   # port 4000, or PORT
 */
/* global console */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';
import { verifyWebhook } from '@presence/sdk/node';

const secrets = (process.env.PRESENCE_WEBHOOK_SECRET ?? '').split(/[\s,]+/).filter((s) => s !== '');
const seen = new Set();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    let event;
    try {
      event = verifyWebhook({ secrets, headers: req.headers, rawBody });
    } catch (error) {
      console.log(`refused ${error.code ?? 'error'}: ${error.message}`);
      res.writeHead(400).end();
      return;
    }
    const again = seen.has(event.deliveryId) ? ' (again: already handled)' : '';
    seen.add(event.deliveryId);
    console.log(`verified ${event.type} ${event.deliveryId} ${JSON.stringify(event.data)}${again}`);
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  if (secrets.length === 0) console.log('PRESENCE_WEBHOOK_SECRET is not set: every request will be refused');
  console.log(`listening on http://127.0.0.1:${server.address().port}/hooks`);
});
process.on('SIGTERM', () => server.close());
