/**
 * The signing-key schedule (ADR 0007) on both dialects: two signers on one store stand for two
 * processes, a manual clock for time. A rotation publishes first, switches later and ends the old
 * key later still; a signer whose copy of the key table is too old refuses instead of signing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, openTestStore, pgAvailable, type TestStore } from '../../storage/testing.js';
import { DomainError } from '../errors.js';
import type { Store } from '../ports.js';
import { createSecretBox } from '../secrets.js';
import { loadReceiptSigner, type ReceiptSigner } from './receipt-signer.js';
import { rotateSigningKey } from './rotate-signing-key.js';

const postgresReady = await pgAvailable();
const REFRESH = 1000;
const MIN = 2 * REFRESH + 1000;

class ManualClock {
  constructor(public t: number) {}
  now = () => this.t;
}

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('service_unavailable');
    return (error as DomainError).detail;
  }
}

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(`signing-key schedule (${dialect})`, () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await openTestStore(dialect);
    });
    afterAll(async () => {
      await db?.cleanup();
    });

    // Each test gets a clock far from the others', so keys left by earlier tests have ended.
    let epoch = Date.UTC(2030, 0, 1);
    const secrets = createSecretBox(randomBytes(32), { bytes: randomBytes });
    const setup = async (store: Store = db.store) => {
      epoch += 365 * 86_400_000;
      const clock = new ManualClock(epoch);
      const deps = { store, clock, secrets };
      const signer = () => loadReceiptSigner(deps, REFRESH);
      return { clock, deps, signer, T: epoch };
    };

    it('publishes the next key first, switches at its notBefore, ends the old key after the overlap', async () => {
      const { clock, deps, signer, T } = await setup();
      const a = await signer();
      const first = a.keyAt(T).kid;
      const rotation = await rotateSigningKey(deps, REFRESH, { leadMs: 5000, overlapMs: 7000 });
      await a.refresh();
      const mine = (s: ReceiptSigner) =>
        s.publishedKeys().filter((k) => [first, rotation.kid].includes(k.kid));
      expect(mine(a).map((k) => [k.kid, k.status, k.notBefore, k.notAfter])).toEqual([
        [first, 'active', new Date(T).toISOString(), new Date(T + 12_000).toISOString()],
        [rotation.kid, 'next', new Date(T + 5000).toISOString(), null],
      ]);
      clock.t = T + 4999;
      await a.ensureFresh();
      expect(a.keyAt(clock.t).kid).toBe(first);
      clock.t = T + 5000;
      await a.ensureFresh();
      expect(a.keyAt(clock.t).kid).toBe(rotation.kid);
      // Evidence dated just before the switch is still the old key's, during the overlap.
      expect(a.keyAt(T + 4999).kid).toBe(first);
      clock.t = T + 12_000;
      await a.ensureFresh();
      expect(mine(a).map((k) => [k.kid, k.status])).toEqual([
        [rotation.kid, 'active'],
        [first, 'retired'],
      ]);
      expect(refusal(() => a.keyAt(T + 4999))).toMatch(/no signing key is valid/);
    });

    it('never signs outside the final validity, whatever each process has seen', async () => {
      const { clock, deps, signer, T } = await setup();
      const processes = [await signer(), await signer(), await signer()];
      const signed: { kid: string; at: number }[] = [];
      let refused = 0;
      for (let step = 0; step <= 200; step++) {
        clock.t = T + step * 100;
        if (step === 7 || step === 90) await rotateSigningKey(deps, REFRESH, { leadMs: MIN, overlapMs: MIN });
        for (const [i, p] of processes.entries()) {
          // Process 0 keeps its table fresh, 1 refreshes late, 2 only every 7 s (as if its database were down).
          if (i === 0 || (i === 1 && step % 13 === 0)) await p.ensureFresh();
          if (i === 2 && step % 70 === 0) await p.refresh();
          const at = clock.t - (step % 3) * 10;
          try {
            signed.push({ kid: p.keyAt(at).kid, at });
          } catch (error) {
            expect((error as DomainError).code).toBe('service_unavailable');
            refused++;
          }
        }
      }
      const rows = await deps.store.signingKeys.list();
      for (const { kid, at } of signed) {
        const k = rows.find((r) => r.kid === kid)!;
        expect(at >= k.notBefore && (k.notAfter === null || at < k.notAfter), `${kid} at ${at - T}`).toBe(
          true,
        );
      }
      expect(new Set(signed.map((s) => s.kid)).size).toBe(3);
      expect(refused).toBeGreaterThan(0);
    });

    it('a process that missed the rotation signs with the old key only while its copy is fresh', async () => {
      const { clock, deps, signer, T } = await setup();
      const stale = await signer();
      const old = stale.keyAt(T).kid;
      clock.t = T + 500;
      const rotation = await rotateSigningKey(deps, REFRESH, { leadMs: MIN, overlapMs: MIN });
      clock.t = T + 2 * REFRESH - 1;
      expect(stale.keyAt(clock.t).kid).toBe(old);
      expect(stale.publishedKeys().some((k) => k.kid === rotation.kid)).toBe(false);
      clock.t = T + 2 * REFRESH;
      expect(refusal(() => stale.keyAt(clock.t))).toMatch(/last read/);
      await stale.ensureFresh();
      expect(stale.keyAt(clock.t).kid).toBe(old);
      expect(stale.publishedKeys().find((k) => k.kid === rotation.kid)?.status).toBe('next');
      expect(await stale.knows(rotation.kid)).toBe(true);
    });

    it('refuses (503) when the key table cannot be read and the copy has grown too old', async () => {
      let failing = false;
      const store = new Proxy(db.store, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (property !== 'signingKeys') return value;
          const repo = value as Store['signingKeys'];
          return {
            ...repo,
            list: () => (failing ? Promise.reject(new Error('database down')) : repo.list()),
          };
        },
      });
      const { clock, signer, T } = await setup(store);
      const s = await signer();
      failing = true;
      clock.t = T + REFRESH;
      await expect(s.ensureFresh()).resolves.toBeUndefined();
      expect(s.keyAt(clock.t).kid).toMatch(/^ed25519-/);
      clock.t = T + 2 * REFRESH;
      await expect(s.ensureFresh()).rejects.toMatchObject({ code: 'service_unavailable' });
      expect(refusal(() => s.keyAt(clock.t))).toMatch(/refusing to sign/);
      failing = false;
      await s.ensureFresh();
      expect(s.keyAt(clock.t).kid).toMatch(/^ed25519-/);
    });

    it('refuses a lead or overlap below 2 × refresh + 1 s, and a second rotation while one is scheduled', async () => {
      const { deps } = await setup();
      await expect(
        rotateSigningKey(deps, REFRESH, { leadMs: MIN - 1, overlapMs: MIN }),
      ).rejects.toMatchObject({
        code: 'invalid_request',
      });
      await expect(
        rotateSigningKey(deps, REFRESH, { leadMs: MIN, overlapMs: MIN - 1 }),
      ).rejects.toMatchObject({
        code: 'invalid_request',
      });
      const first = await rotateSigningKey(deps, REFRESH, { leadMs: MIN, overlapMs: MIN });
      await expect(rotateSigningKey(deps, REFRESH, { leadMs: MIN, overlapMs: MIN })).rejects.toMatchObject({
        code: 'conflict',
        detail: expect.stringContaining(first.kid),
      });
    });
  });
}
