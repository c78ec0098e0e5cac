/**
 * The offline verifier against tampered packs: a changed byte in any file, a removed or repeated
 * receipt line, a swapped manifest, a signature by another key, and extra or missing files. The
 * pack's bytes are what is tested here, not storage, so one database (SQLite) is enough.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { verifyPack, type PackReport } from '@presence/sdk/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchPack, publishedKeys, unzipPack, zipFiles } from './support/export-pack.js';
import { seedReceipts } from './support/seed-receipts.js';
import { useTestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('tampered export packs fail offline verification', () => {
  const s = useTestService('sqlite');
  let files: Map<string, Buffer>;
  let otherPack: Map<string, Buffer>;
  let keys: any[];
  beforeAll(async () => {
    const { authenticator } = await s.enroll('alice');
    await seedReceipts(s.composed.deps, s.tenantId, authenticator, 12, { issuedAt: (i) => BASE + i * 1000 });
    files = await unzipPack((await fetchPack(s, `from=${iso(BASE)}&to=${iso(BASE + 60_000)}`)).zip);
    otherPack = await unzipPack((await fetchPack(s, `from=${iso(BASE)}&to=${iso(BASE + 6000)}`)).zip);
    keys = await publishedKeys(s);
  });

  const verify = async (entries: [string, Buffer][]) => verifyPack(await zipFiles(entries), { keys });
  const failed = (report: PackReport) => report.checks.filter((c) => !c.ok).map((c) => c.name);
  const withFile = (name: string, bytes: Buffer): [string, Buffer][] =>
    [...files].map(([n, b]) => [n, n === name ? bytes : b]);

  it('the untouched files, re-zipped, pass', async () => {
    const report = await verify([...files]);
    expect(failed(report)).toEqual([]);
    expect(report).toMatchObject({ valid: true, receipts: 12 });
  });

  it('a changed byte in any file fails', async () => {
    for (const [name, bytes] of files) {
      for (const at of [0, Math.floor(bytes.length / 2), bytes.length - 2]) {
        const changed = Buffer.from(bytes);
        changed[at] = changed[at]! ^ 0x01;
        const report = await verify(withFile(name, changed));
        expect(report.valid, `${name} byte ${at}`).toBe(false);
      }
    }
  });

  it('a changed byte in the compressed zip itself fails', async () => {
    const zip = await zipFiles([...files]);
    const changed = Buffer.from(zip);
    changed[200] = changed[200]! ^ 0xff;
    expect((await verifyPack(changed, { keys })).valid).toBe(false);
  });

  it('a removed receipt line fails on the file hash and the count', async () => {
    const lines = files.get('receipts.ndjson')!.toString().split('\n');
    lines.splice(3, 1);
    const report = await verify(withFile('receipts.ndjson', Buffer.from(lines.join('\n'))));
    expect(failed(report)).toEqual(['file receipts.ndjson', 'receipts.count']);
  });

  it('a repeated receipt line fails on the file hash, uniqueness and the count', async () => {
    const lines = files.get('receipts.ndjson')!.toString().split('\n');
    lines.splice(4, 0, lines[4]!);
    const report = await verify(withFile('receipts.ndjson', Buffer.from(lines.join('\n'))));
    expect(failed(report)).toEqual(['file receipts.ndjson', 'receipts.unique', 'receipts.count']);
  });

  it('a swapped manifest, even one genuinely signed for another pack, fails', async () => {
    const swapped = withFile('manifest.json', otherPack.get('manifest.json')!).map(
      ([n, b]): [string, Buffer] => [n, n === 'manifest.sig.json' ? otherPack.get(n)! : b],
    );
    const report = await verify(swapped);
    expect(report.valid).toBe(false);
    expect(failed(report)).toContain('file receipts.ndjson');
    const unsigned = await verify(withFile('manifest.json', otherPack.get('manifest.json')!));
    expect(failed(unsigned)).toContain('manifest.signature');
  });

  it('a manifest signed by another key fails, whatever kid it claims', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const manifest = files.get('manifest.json')!;
    const forged = sign(null, manifest, privateKey).toString('base64url');
    const claimed = JSON.parse(files.get('manifest.sig.json')!.toString()).kid;
    for (const kid of [claimed, 'ed25519-0000000000000000']) {
      const sig = Buffer.from(JSON.stringify({ alg: 'Ed25519', kid, signatureB64Url: forged }));
      const report = await verify(withFile('manifest.sig.json', sig));
      expect(failed(report)).toEqual(['manifest.signature']);
    }
  });

  it('an extra, a missing or a repeated file fails; so does having no trust root', async () => {
    expect(failed(await verify([...files, ['notes.txt', Buffer.from('hi')]]))).toEqual(['files.present']);
    const withoutPolicy = [...files].filter(([n]) => n !== 'policy.snapshot.json');
    expect(failed(await verify(withoutPolicy))).toContain('files.present');
    expect((await verify([...files, ['VERIFY.txt', files.get('VERIFY.txt')!]])).valid).toBe(false);
    const noRoot = await verifyPack(await zipFiles([...files]), {});
    expect(failed(noRoot)).toContain('manifest.signature');
  });
});
