/**
 * GET /v1/presence/receipts: filters, order, the opaque cursor, scopes and tenants, and paging
 * that neither repeats nor skips while receipts are inserted concurrently (both orders, both
 * databases).
 */
import { verifyReceipt } from '@presence/sdk/node';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

// After the service key's notBefore, so backdated receipts still fall inside its validity.
const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describeEachDialect('receipt listing', (dialect) => {
  const s = useTestService(dialect);
  let alice: SoftAuthenticator;
  let aliceCredential: any;
  let bob: SoftAuthenticator;
  beforeAll(async () => {
    ({ authenticator: alice, credential: aliceCredential } = await s.enroll('alice'));
    ({ authenticator: bob } = await s.enroll('bob'));
    const action = (i: number) => (i % 5 === 0 ? 'aa'.repeat(32) : 'bb'.repeat(32));
    await seedReceipts(s.composed.deps, s.tenantId, alice, 30, {
      issuedAt: (i) => BASE + i * 1000,
      actionHashHex: action,
    });
    await seedReceipts(s.composed.deps, s.tenantId, bob, 10, { issuedAt: (i) => BASE + 10_500 + i * 1000 });
  });

  const list = async (query: string, key?: string) =>
    s.request('GET', `/v1/presence/receipts?${query}`, undefined, key);

  async function walk(query: string, onPage: () => Promise<void> = async () => undefined) {
    const seen: { id: string; seq: number; issuedAt: number }[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      seen.push(
        ...res.json.data.map((d: any) => ({
          id: d.receipt.receiptId,
          seq: d.seq,
          issuedAt: Date.parse(d.receipt.issuedAt),
        })),
      );
      cursor = res.json.nextCursor;
      await onPage();
    } while (cursor !== null);
    return seen;
  }

  it('lists newest first with the challenge, hash and signature; every item verifies offline', async () => {
    const res = await list('limit=5');
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(5);
    const seqs = res.json.data.map((d: any) => d.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    const keys = (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json.keys;
    for (const item of res.json.data) {
      expect(item.challenge).toMatchObject({ challengeId: item.receipt.challengeId, status: 'verified' });
      expect(verifyReceipt(item, { keys }).valid).toBe(true);
    }
    expect(typeof res.json.nextCursor).toBe('string');
  });

  it('filters by subject, action hash, credential (either id), time range and decision', async () => {
    const ids = async (q: string) => (await walk(`limit=100&${q}`)).map((r) => r.id);
    expect(await ids('subject=bob')).toHaveLength(10);
    expect(await ids(`actionHashHex=${'aa'.repeat(32)}`)).toHaveLength(6);
    expect(await ids(`credentialId=${aliceCredential.id}`)).toHaveLength(30);
    expect(await ids(`credentialId=${alice.id}`)).toHaveLength(30);
    expect(await ids('credentialId=unknownCredential')).toHaveLength(0);
    const ranged = await ids(`from=${iso(BASE + 10_000)}&to=${iso(BASE + 20_000)}`);
    expect(ranged).toHaveLength(20); // alice's receipts 10..19 and all ten of bob's
    expect(await ids('decision=PRESENCE_VERIFIED&subject=alice')).toHaveLength(30);
    expect(await ids('decision=USER_NOT_VERIFIED')).toHaveLength(0);
  });

  it('pages to the end and says so with nextCursor null, in both orders', async () => {
    for (const order of ['asc', 'desc']) {
      const seen = await walk(`limit=7&order=${order}&subject=alice`);
      expect(seen).toHaveLength(30);
      const seqs = seen.map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => (order === 'asc' ? a - b : b - a)));
    }
  });

  it('refuses a forged cursor, one issued for another query, and one from another tenant', async () => {
    const first = await list('limit=2&subject=alice');
    const cursor = first.json.nextCursor as string;
    const forged = `${cursor.slice(0, -2)}xx`;
    for (const query of [
      `limit=2&subject=alice&cursor=${forged}`,
      `limit=2&subject=bob&cursor=${cursor}`,
      `limit=2&subject=alice&order=asc&cursor=${cursor}`,
    ]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.json.code).toBe('invalid_cursor');
    }
    const other = await s.newTenant();
    const res = await list(`limit=2&subject=alice&cursor=${cursor}`, other.apiKey);
    expect(res.json.code).toBe('invalid_cursor');
  });

  it('rejects an empty time range and unknown parameters, naming the field', async () => {
    const res = await list(`from=${iso(BASE + 5000)}&to=${iso(BASE + 5000)}`);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ field: 'querystring/to', message: 'must be after from' }]);
    expect((await list('order=sideways')).status).toBe(400);
    expect((await list('limit=1001')).status).toBe(400);
  });

  it('needs receipts:read and shows a tenant only its own receipts', async () => {
    expect((await list('limit=1', '')).status).toBe(401);
    const exportOnly = await s.keyWith(['receipts:export']);
    expect((await list('limit=1', exportOnly)).json.code).toBe('insufficient_scope');
    const other = await s.newTenant();
    const res = await list('limit=100', other.apiKey);
    expect(res.json).toEqual({ data: [], nextCursor: null });
    const byCredential = await list(`credentialId=${aliceCredential.id}`, other.apiKey);
    expect(byCredential.json.data).toEqual([]);
  });

  for (const order of ['asc', 'desc'] as const) {
    for (const ranged of [false, true]) {
      it(`neither repeats nor skips while receipts arrive (${order}${ranged ? ', time range' : ''})`, async () => {
        const range = ranged ? `&from=${iso(BASE)}&to=${iso(BASE + 40_000)}` : '';
        const before = await walk(`limit=1000&order=asc${range}`);
        let walking = true;
        const inserter = (async () => {
          for (let i = 0; i < 25 && walking; i++) {
            // Backdated into the range already walked, and new: a keyset on issuedAt would skip or repeat.
            await seedReceipts(s.composed.deps, s.tenantId, alice, 2, {
              issuedAt: (k) => BASE + ((i * 7919 + k * 104_729) % 40_000),
              batch: 1,
            });
          }
        })();
        const seen = await walk(`limit=3&order=${order}${range}`, async () => {
          await new Promise((r) => setImmediate(r));
        });
        walking = false;
        await inserter;
        const ids = seen.map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        const seenSet = new Set(ids);
        expect(before.filter((r) => !seenSet.has(r.id))).toEqual([]);
        const seqs = seen.map((r) => r.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => (order === 'asc' ? a - b : b - a)));
        // Seq order is commit order: behind the highest seq a walk saw, nothing is missing.
        const top = Math.max(...seqs);
        const inRange = (r: { issuedAt: number }) =>
          !ranged || (r.issuedAt >= BASE && r.issuedAt < BASE + 40_000);
        const expected = (await walk('limit=1000&order=asc')).filter((r) => r.seq <= top && inRange(r));
        expect([...seen].sort((a, b) => a.seq - b.seq)).toEqual(expected);
      });
    }
  }
});
