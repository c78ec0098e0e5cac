/**
 * The first thing a developer sees: `PORT=… npm start` (the built service as a real process) moves
 * the development tenant, its invite and every printed link to that port, and prints one block
 * with the console, demo, docs, API base, SDK, tenant id and how to make a new key later.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderStartBanner } from '../src/start-banner.js';
import { serviceBuilt, startServerProcess } from './support/server-process.js';

describe('the start block', () => {
  it('names every door, the tenant and how to get a key later; the key and invite only when there are some', () => {
    const first = renderStartBanner({
      origin: 'http://localhost:3000',
      consoleOrigin: 'http://localhost:3000',
      development: {
        tenantId: 'ten_1',
        apiKey: 'presence_k',
        inviteUrl: 'http://localhost:3000/console/invite/t',
      },
    });
    for (const line of [
      'Console     http://localhost:3000/console',
      'Demo        http://localhost:3000/demo',
      'API docs    http://localhost:3000/docs',
      'API base    http://localhost:3000/v1',
      'SDK         npm install http://localhost:3000/sdk/presence-sdk.tgz',
      'Python      pip install http://localhost:3000/sdk/presence-guard.tar.gz',
      'Tenant      ten_1',
      'API key     presence_k',
      'npx presence keys create --tenant ten_1',
      'http://localhost:3000/console/invite/t',
    ])
      expect(first).toContain(line);
    const later = renderStartBanner({
      origin: 'http://localhost:3000',
      consoleOrigin: 'http://localhost:3000',
      development: { tenantId: 'ten_1', originMissing: 'http://localhost:3000' },
    });
    expect(later).not.toContain('API key     ');
    expect(later).not.toContain('invite');
    expect(later).toContain('policy does not allow http://localhost:3000');
  });
});

describe.skipIf(!serviceBuilt('start block'))('PORT moves the development origin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'presence-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one block whose links, tenant and invite all use the port it listens on', async () => {
    const server = await startServerProcess({ PRESENCE_DEV_TENANT: 'true', PRESENCE_DATA_DIR: dir });
    const port = new URL(server.url).port;
    const origin = `http://localhost:${port}`;
    await new Promise((r) => setTimeout(r, 200));
    const out = server.output();
    expect(await server.stop()).toBe(0);
    expect(out).toContain(`Presence is running at ${origin}`);
    expect(out).toMatch(new RegExp(`Console {5}${origin}/console`));
    expect(out).toMatch(/Tenant {6}ten_\w+/);
    expect(out).toMatch(/API key {5}presence_\w+/);
    expect(out).toContain(`${origin}/console/invite/`);
    expect(out).not.toContain(':8080');
    expect(out.match(/Presence is running at/g)).toHaveLength(1);

    const again = await startServerProcess({ PRESENCE_DEV_TENANT: 'true', PRESENCE_DATA_DIR: dir });
    await new Promise((r) => setTimeout(r, 200));
    const second = again.output();
    expect(await again.stop()).toBe(0);
    expect(second).not.toMatch(/API key {5}presence_/);
    expect(second).toMatch(/npx presence keys create --tenant ten_\w+/);
    // The second start listens on another free port: the block says the tenant's policy lacks it.
    expect(second).toContain(`policy does not allow http://localhost:${new URL(again.url).port}`);
  }, 120_000);
});
