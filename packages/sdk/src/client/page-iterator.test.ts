import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPresenceClient, type PresenceClient } from './create-presence-client.js';

/** A local listing of 7 items served 3 per page, with opaque cursors and a record of requests. */
let server: Server;
let client: PresenceClient;
const requests: URL[] = [];

beforeAll(async () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ receipt: { receiptId: `rct_${i}` }, challenge: {} }));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url);
    const limit = Number(url.searchParams.get('limit') ?? 3);
    const start = url.searchParams.has('cursor') ? Number(atob(url.searchParams.get('cursor')!)) : 0;
    const data = items.slice(start, start + limit);
    const next = start + limit < items.length ? btoa(String(start + limit)) : null;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, nextCursor: next }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createPresenceClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: 'k',
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('PageIterator', () => {
  it('yields every item across pages, passing filters and the cursor back on each request', async () => {
    requests.length = 0;
    const ids: string[] = [];
    for await (const item of client.receipts.list({ subject: 'user-1', limit: 3, order: 'asc' })) {
      ids.push((item.receipt as { receiptId: string }).receiptId);
    }
    expect(ids).toEqual(['rct_0', 'rct_1', 'rct_2', 'rct_3', 'rct_4', 'rct_5', 'rct_6']);
    expect(requests).toHaveLength(3);
    expect(requests.map((u) => u.searchParams.get('subject'))).toEqual(['user-1', 'user-1', 'user-1']);
    expect(requests.map((u) => u.searchParams.get('cursor'))).toEqual([null, btoa('3'), btoa('6')]);
  });

  it('fetches lazily: breaking out early stops requesting pages', async () => {
    requests.length = 0;
    for await (const item of client.receipts.list({ limit: 3 })) {
      if ((item.receipt as { receiptId: string }).receiptId === 'rct_1') break;
    }
    expect(requests).toHaveLength(1);
  });

  it('exposes whole pages and collects with toArray', async () => {
    const pages = [];
    for await (const page of client.keys.list({ limit: 5 }).pages()) pages.push(page.data.length);
    expect(pages).toEqual([5, 2]);
    expect(await client.credentials.list({ limit: 2 }).toArray(3)).toHaveLength(3);
  });
});
