import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Env, loadConfig } from './load-config.js';

const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe('configuration', () => {
  it('documents every variable the service reads in the README configuration table', () => {
    const table = README.slice(README.indexOf('## Configuration'));
    const undocumented = Object.keys(Env.properties).filter((name) => !table.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });

  it('reads the export heap budget in MiB: 16 by default, 0 turns it off, nothing negative', () => {
    const base = { PRESENCE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url') };
    expect(loadConfig(base).exportHeapGrowthBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ ...base, PRESENCE_EXPORT_HEAP_GROWTH_MB: '0' }).exportHeapGrowthBytes).toBe(0);
    expect(() => loadConfig({ ...base, PRESENCE_EXPORT_HEAP_GROWTH_MB: '-1' })).toThrow(
      /PRESENCE_EXPORT_HEAP_GROWTH_MB/,
    );
  });

  it('checks the store inside its own transactions outside production only, unless told', () => {
    const base = { PRESENCE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url') };
    const production = { ...base, NODE_ENV: 'production' };
    expect(loadConfig(base).transactionGuard).toBe(true);
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).transactionGuard).toBe(true);
    expect(loadConfig(production).transactionGuard).toBe(false);
    expect(loadConfig({ ...production, PRESENCE_STORE_GUARD: 'true' }).transactionGuard).toBe(true);
    expect(loadConfig({ ...base, PRESENCE_STORE_GUARD: 'false' }).transactionGuard).toBe(false);
    expect(() => loadConfig({ ...base, PRESENCE_STORE_GUARD: 'maybe' })).toThrow(/PRESENCE_STORE_GUARD/);
  });

  it('takes the public origin of approval and enrollment links from PRESENCE_PUBLIC_ORIGIN, else the console origin', () => {
    const base = { PRESENCE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url') };
    expect(loadConfig(base).publicOrigin).toBe('http://localhost:8080');
    const console = { ...base, PRESENCE_CONSOLE_ORIGIN: 'https://console.example' };
    expect(loadConfig(console).publicOrigin).toBe('https://console.example');
    expect(loadConfig({ ...console, PRESENCE_PUBLIC_ORIGIN: 'https://approve.example' }).publicOrigin).toBe(
      'https://approve.example',
    );
    expect(() => loadConfig({ ...base, PRESENCE_PUBLIC_ORIGIN: 'https://x.example/path' })).toThrow(
      /PRESENCE_PUBLIC_ORIGIN/,
    );
  });
});
