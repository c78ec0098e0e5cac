/**
 * API keys are served from memory for at most API_KEY_CACHE_TTL_MS (ADR 0010): a revocation through
 * this process applies at once; one made elsewhere (another instance, the CLI: here, straight in the
 * database) applies within that time, never later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_CACHE_TTL_MS } from '../src/domain/api-keys/api-key-cache.js';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { startTestService, type TestService } from './support/test-service.js';

const postgresReady = await pgAvailable();

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(`API key cache (${dialect})`, () => {
    let s: TestService;
    beforeAll(async () => {
      s = await startTestService(dialect);
    });
    afterAll(async () => {
      await s?.close();
    });

    async function freshKey() {
      const created = await s.request('POST', '/v1/keys', { name: 'cached', scopes: ['policy:read'] });
      expect(created.status).toBe(201);
      return { id: created.json.key.keyId as string, secret: created.json.secret as string };
    }
    const readPolicy = (secret: string) => s.request('GET', '/v1/policy', undefined, secret);

    it('applies a revocation through this process at once', async () => {
      const key = await freshKey();
      expect((await readPolicy(key.secret)).status).toBe(200);
      expect((await s.request('DELETE', `/v1/keys/${key.id}`)).status).toBe(200);
      expect((await readPolicy(key.secret)).status).toBe(401);
    });

    it('applies a revocation made elsewhere within the cache lifetime', async () => {
      const key = await freshKey();
      expect((await readPolicy(key.secret)).status).toBe(200);
      await s.composed.deps.store.apiKeys.update(s.tenantId, key.id, { revokedAt: s.clock.now() });
      s.clock.advance(API_KEY_CACHE_TTL_MS / 1000);
      expect((await readPolicy(key.secret)).status).toBe(401);
    });
  });
}
