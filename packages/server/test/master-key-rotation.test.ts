/**
 * Master-key rotation on both dialects, without downtime: with the new key current and the old
 * one as PRESENCE_MASTER_KEY_PREVIOUS, everything sealed (signing keys, webhook secrets current
 * and previous, idempotent responses) still opens; `resealSecrets` moves every value to the new
 * key; afterwards the old key can be dropped and everything still opens with the new one alone.
 * The CLI half runs `presence master-key reseal` on a real SQLite data directory.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { afterAll, describe, expect, it } from 'vitest';
import { depsFromStore } from '../src/compose.js';
import { resealSecrets } from '../src/domain/master-key/reseal-secrets.js';
import { signingSecrets } from '../src/domain/webhooks/webhook-secret.js';
import { describeEachDialect } from './support/each-dialect.js';
import { cli, serviceBuilt } from './support/server-process.js';
import { createEndpoint, receiverPool, useWebhookService } from './support/webhook-helpers.js';

describeEachDialect('master-key rotation', (dialect) => {
  const pool = receiverPool();
  const s = useWebhookService(dialect, (started) => pool.closeWith(started));

  it('re-seals every secret under the new key, after which the old key can go', async () => {
    const receiver = await pool.start();
    const endpoint = await createEndpoint(s, receiver.url);
    const rotated = await s.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    const idempotent = await s.composed.app.inject({
      method: 'POST',
      url: '/v1/presence/challenge',
      headers: { authorization: `Bearer ${s.apiKey}`, 'idempotency-key': 'rotation-1' },
      payload: { actionHashHex: computeActionHash({ rotation: 1 }) },
    });
    expect(idempotent.statusCode).toBe(201);

    const store = s.testStore.store;
    const oldKey = s.masterKey;
    const newKey = randomBytes(32);
    // The new key alone opens nothing yet: the signer cannot load its key.
    await expect(depsFromStore(store, newKey, s.clock)).rejects.toThrow();

    const during = await depsFromStore(store, newKey, s.clock, {}, undefined, oldKey);
    const counts = await resealSecrets(during);
    const byKind = Object.fromEntries(counts.map((c) => [c.kind, c]));
    expect(byKind['signing-key']!.resealed).toBeGreaterThanOrEqual(1);
    expect(byKind['webhook-secret']!.resealed).toBe(1);
    expect(byKind['webhook-previous-secret']!.resealed).toBe(1);
    expect(byKind['idempotency-response']!.resealed).toBe(1);

    const after = await depsFromStore(store, newKey, s.clock);
    const again = await resealSecrets(after);
    expect(again.every((c) => c.resealed === 0)).toBe(true);
    expect(again.reduce((n, c) => n + c.current, 0)).toBe(
      counts.reduce((n, c) => n + c.resealed + c.current, 0),
    );
    const record = await store.webhooks.endpoints.get(s.tenantId, endpoint.id);
    expect(signingSecrets(after, record!, s.clock.now())).toEqual([rotated.json.secret, endpoint.secret]);
    expect(after.signer.publishedKeys().length).toBeGreaterThanOrEqual(1);
  });
});

describe.skipIf(!serviceBuilt('master-key CLI test'))(
  'presence master-key reseal and backup (CLI, SQLite)',
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-mk-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('moves the signing key to the new master key; then the old key is not needed', () => {
      const oldKey = cli(['master-key', 'generate'], {}).trim();
      const newKey = cli(['master-key', 'generate'], {}).trim();
      expect(oldKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const base = { PRESENCE_DATA_DIR: dataDir, PRESENCE_DEV_TENANT: 'false' };
      cli(['tenant', 'create', '--name', 'mk', '--rp-id', 'app.example', '--origin', 'https://app.example'], {
        ...base,
        PRESENCE_MASTER_KEY: oldKey,
      });
      expect(() => cli(['signing-keys', 'rotate'], { ...base, PRESENCE_MASTER_KEY: newKey })).toThrow();
      const out = cli(['master-key', 'reseal'], {
        ...base,
        PRESENCE_MASTER_KEY: newKey,
        PRESENCE_MASTER_KEY_PREVIOUS: oldKey,
      });
      expect(out).toContain('"kind":"signing-key","resealed":1');
      expect(out).toContain('PRESENCE_MASTER_KEY_PREVIOUS can be dropped');
      expect(cli(['signing-keys', 'rotate'], { ...base, PRESENCE_MASTER_KEY: newKey })).toContain(
        'published signing key',
      );

      // `presence backup` copies the live database; the copy opens with the new key alone.
      const copy = join(dataDir, 'copy', 'presence.sqlite');
      mkdirSync(join(dataDir, 'copy'));
      expect(cli(['backup', '--to', copy], { ...base, PRESENCE_MASTER_KEY: newKey })).toContain('backed up');
      expect(() => cli(['backup', '--to', copy], { ...base, PRESENCE_MASTER_KEY: newKey })).toThrow(/exists/);
      const fromCopy = {
        PRESENCE_DATA_DIR: join(dataDir, 'copy'),
        PRESENCE_DEV_TENANT: 'false',
        PRESENCE_MASTER_KEY: newKey,
      };
      // Listing opens every sealed signing key: the copy needs the new master key alone.
      expect(cli(['signing-keys', 'list'], fromCopy)).toMatch(/ed25519-[0-9a-f]+/);
    }, 180_000); // seven CLI processes, each a cold Node start
  },
);
