/** Export packs in tests: fetch one through the app, read its files, and re-zip tampered copies. */
import { openZip } from '@presence/sdk/node';
import { ZipFile } from 'yazl';
import type { TestService } from './test-service.js';

export async function fetchPack(s: TestService, query: string, key = s.apiKey) {
  const res = await s.composed.app.inject({
    method: 'GET',
    url: `/v1/presence/receipts/export?${query}`,
    headers: key === '' ? {} : { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, headers: res.headers, zip: res.rawPayload, json: () => res.json() };
}

/** Every file of a zip, in order. */
export async function unzipPack(zip: Uint8Array): Promise<Map<string, Buffer>> {
  const view = await openZip(zip);
  try {
    const files = new Map<string, Buffer>();
    for (const name of view.names) files.set(name, await view.read(name, 1 << 30));
    return files;
  } finally {
    view.close();
  }
}

/** A zip of exactly these files (a repeated name is written twice). */
export async function zipFiles(files: [string, Buffer][]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, bytes] of files) zip.addBuffer(bytes, name, { mtime: new Date(0) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function publishedKeys(s: TestService) {
  return (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json.keys;
}

/** The export's audit row once it has ended: the server settles it just after the last byte. */
export async function settledExport(s: TestService, exportId: string) {
  let row: Record<string, unknown> | undefined;
  for (let i = 0; i < 100; i++) {
    row = (await s.testStore.rows('exports')).find((r) => r.id === exportId);
    if (row && row.status !== 'running') return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  return row;
}
