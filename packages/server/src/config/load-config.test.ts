import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Env, loadConfig } from './load-config.js';
import { SECRET_VARIABLES } from './secret-files.js';

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

describe('the development origin and secrets in files', () => {
  const key = Buffer.alloc(32, 7).toString('base64url');

  it('derives the development origin (and the console origin) from PORT and HOST unless set', () => {
    expect(loadConfig({ PRESENCE_MASTER_KEY: key }).devOrigin).toBe('http://localhost:8080');
    const moved = loadConfig({ PRESENCE_MASTER_KEY: key, PORT: '3000' });
    expect(moved.devOrigin).toBe('http://localhost:3000');
    expect(moved.consoleOrigin).toBe('http://localhost:3000');
    expect(loadConfig({ PRESENCE_MASTER_KEY: key, HOST: '0.0.0.0', PORT: '3001' }).devOrigin).toBe(
      'http://localhost:3001',
    );
    expect(loadConfig({ PRESENCE_MASTER_KEY: key, HOST: 'presence.test', PORT: '80' }).devOrigin).toBe(
      'http://presence.test:80',
    );
    const set = { PRESENCE_MASTER_KEY: key, PORT: '3000', PRESENCE_DEV_ORIGIN: 'http://localhost:9000' };
    expect(loadConfig(set).devOrigin).toBe('http://localhost:9000');
  });

  it('reads every secret variable from <NAME>_FILE, less a trailing newline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'presence-secret-files-'));
    const write = (name: string, value: string) => {
      writeFileSync(join(dir, name), `${value}\n`, { mode: 0o600 });
      return join(dir, name);
    };
    const admin = 'a'.repeat(40);
    const metrics = 'm'.repeat(40);
    const previous = Buffer.alloc(32, 9).toString('base64url');
    const config = loadConfig({
      NODE_ENV: 'production',
      PRESENCE_MASTER_KEY_FILE: write('master', key),
      PRESENCE_MASTER_KEY_PREVIOUS_FILE: write('previous', previous),
      PRESENCE_ADMIN_TOKEN_FILE: write('admin', admin),
      PRESENCE_METRICS_TOKEN_FILE: write('metrics', metrics),
      DATABASE_URL_FILE: write('db', 'postgres://u:p@db/presence'),
      REDIS_URL_FILE: write('redis', 'redis://:p@cache:6379'),
    });
    expect(config.masterKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.masterKeySource).toBe('environment');
    expect(config.previousMasterKey?.equals(Buffer.alloc(32, 9))).toBe(true);
    expect(config.metricsToken).toBe(metrics);
    expect(config.billing.operatorTokenSha256?.length).toBe(32);
    expect(config.databaseUrl).toBe('postgres://u:p@db/presence');
    expect(config.redisUrl).toBe('redis://:p@cache:6379');
    for (const name of SECRET_VARIABLES) expect(Env.properties).toHaveProperty(name);
  });

  it('refuses both forms at once, an unreadable file and a bad value read from a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'presence-secret-files-'));
    writeFileSync(join(dir, 'short'), 'too-short\n');
    expect(() =>
      loadConfig({ PRESENCE_MASTER_KEY: key, PRESENCE_MASTER_KEY_FILE: join(dir, 'short') }),
    ).toThrow(/PRESENCE_MASTER_KEY or PRESENCE_MASTER_KEY_FILE, not both/);
    expect(() => loadConfig({ PRESENCE_MASTER_KEY_FILE: join(dir, 'missing') })).toThrow(
      /PRESENCE_MASTER_KEY_FILE: cannot read .*missing: ENOENT/,
    );
    expect(() => loadConfig({ PRESENCE_MASTER_KEY_FILE: join(dir, 'short') })).toThrow(/PRESENCE_MASTER_KEY/);
  });
});
