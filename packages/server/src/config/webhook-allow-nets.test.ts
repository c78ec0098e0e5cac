import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../domain/webhooks/address-policy.js';
import { loadConfig } from './load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'presence-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = { PRESENCE_DATA_DIR: dir, PRESENCE_MASTER_KEY: Buffer.alloc(32, 1).toString('base64url') };
const refusalOf = (env: Record<string, string>, address: string) =>
  createAddressPolicy(loadConfig({ ...base, ...env }).webhookAllowNets).refusal(address);

describe('webhook targets by configuration', () => {
  it('lets the development tenant of npm start deliver to loopback receivers, and nothing private else', () => {
    expect(refusalOf({}, '127.0.0.1')).toBeNull();
    expect(refusalOf({}, '::1')).toBeNull();
    expect(refusalOf({}, '10.0.0.7')).toMatch(/private/);
  });

  it('refuses loopback in production, without the development tenant, or when the variable is set', () => {
    expect(refusalOf({ NODE_ENV: 'production' }, '127.0.0.1')).toMatch(/loopback/);
    expect(refusalOf({ NODE_ENV: 'production', PRESENCE_DEV_TENANT: 'true' }, '127.0.0.1')).toMatch(
      /loopback/,
    );
    expect(refusalOf({ PRESENCE_DEV_TENANT: 'false' }, '127.0.0.1')).toMatch(/loopback/);
    expect(refusalOf({ PRESENCE_WEBHOOK_ALLOW_NETS: '' }, '127.0.0.1')).toMatch(/loopback/);
    expect(refusalOf({ PRESENCE_WEBHOOK_ALLOW_NETS: '10.0.0.0/8' }, '10.0.0.7')).toBeNull();
  });
});
