import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { fastifyTrustProxy, readTrustProxy, trustProxyWarning, type TrustProxy } from './read-trust-proxy.js';

/** The client address Fastify derives with this setting, for a peer and the X-Forwarded-For it sent. */
async function clientAddress(trust: TrustProxy, peer: string, forwardedFor: string): Promise<string> {
  const app = Fastify({ trustProxy: fastifyTrustProxy(trust) });
  app.get('/', async (request) => request.ip);
  const res = await app.inject({
    url: '/',
    remoteAddress: peer,
    headers: { 'x-forwarded-for': forwardedFor },
  });
  await app.close();
  return res.body;
}

describe('PRESENCE_TRUST_PROXY', () => {
  it('reads nothing, a hop count, a list of addresses and CIDRs, or true', () => {
    expect(readTrustProxy(undefined)).toBe(false);
    expect(readTrustProxy('false')).toBe(false);
    expect(readTrustProxy('0')).toBe(false);
    expect(readTrustProxy('1')).toBe(1);
    expect(readTrustProxy('true')).toBe(true);
    expect(readTrustProxy('10.0.0.0/8, 192.168.1.7,fd00::/8,loopback')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses anything else at start, naming the variable and what to write', () => {
    const base = { PRESENCE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url') };
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.300', 'proxy.internal', '1,', '-1', '99']) {
      expect(() => loadConfig({ ...base, PRESENCE_TRUST_PROXY: bad }), bad).toThrow(
        /PRESENCE_TRUST_PROXY: .*/,
      );
    }
    expect(() => loadConfig({ ...base, PRESENCE_TRUST_PROXY: 'yes' })).toThrow(/hop count \(e\.g\. 1\)/);
    expect(loadConfig({ ...base, PRESENCE_TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  it('warns about true only, with what to set instead', () => {
    expect(trustProxyWarning(true)).toMatch(/PRESENCE_TRUST_PROXY=1.*PRESENCE_TRUST_PROXY=10\.0\.0\.0\/8/);
    for (const other of [false, 1, ['10.0.0.0/8']] as TrustProxy[])
      expect(trustProxyWarning(other)).toBeUndefined();
  });

  it('a hop count takes the address the outermost trusted proxy saw, not what the client wrote', async () => {
    expect(await clientAddress(1, '10.0.0.5', '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7');
    expect(await clientAddress(2, '10.0.0.5', '6.6.6.6, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
    expect(await clientAddress(true, '10.0.0.5', '6.6.6.6, 203.0.113.7')).toBe('6.6.6.6');
    expect(await clientAddress(false, '10.0.0.5', '6.6.6.6')).toBe('10.0.0.5');
  });

  it('a list trusts only those proxies: anyone else is the client, whatever it wrote', async () => {
    const trusted = readTrustProxy('10.0.0.0/8');
    expect(await clientAddress(trusted, '10.0.0.5', '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7');
    expect(await clientAddress(trusted, '203.0.113.9', '6.6.6.6')).toBe('203.0.113.9');
  });
});
