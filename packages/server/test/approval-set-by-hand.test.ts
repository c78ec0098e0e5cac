/**
 * docs/evidence.md §12 "Checking one by hand with stock tools": the script printed there, run as
 * written with sh, jq, sha256sum, base64 and openssl, on a real approval set and its receipts, and
 * on one tampering per check. To reach each later check, the tampered sets (and receipts) are signed
 * again with a key the test adds to keys.json: the script must still name the broken check.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '@presence/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const DOC = readFileSync(new URL('../../../docs/evidence.md', import.meta.url), 'utf8');
const TOOLS = ['sh', 'jq', 'sha256sum', 'base64', 'openssl', 'python3'];
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
if (missing.length > 0 && process.env['CI'] === 'true') throw new Error(`missing tools: ${missing}`);
if (missing.length > 0) console.warn(`approval set by hand skipped: ${missing.join(', ')} not installed`);

/** The shell block between `<!-- name: begin -->` and `<!-- name: end -->` in the doc. */
function block(name: string): string {
  const found = new RegExp(
    `<!-- ${name}: begin -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}: end -->`,
  ).exec(DOC);
  if (!found) throw new Error(`docs/evidence.md has no ${name} block`);
  return found[1]!;
}
const SCRIPT = block('approval-set-by-hand');
const PYTHON = block('approval-set-python');

type Json = any;
const clone = <T>(x: T): T => structuredClone(x);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const testKey = generateKeyPairSync('ed25519');
const TEST_KID = 'test-resigning-key';
const signText = (text: string) => sign(null, Buffer.from(text), testKey.privateKey).toString('base64url');

/** Signs `signed[field]` again with the test key after `mutate`, as a forger holding a trusted key would. */
function resigned(signed: Json, field: string, hashField: string, mutate: (inner: Json) => void): Json {
  const copy = clone(signed);
  mutate(copy[field]);
  const bytes = canonicalJson(copy[field]);
  copy[hashField] = sha256(bytes);
  copy.signature = { alg: 'Ed25519', kid: TEST_KID, signatureB64Url: signText(bytes) };
  return copy;
}

describeEachDialect('an approval set checked by hand with the commands of docs/evidence.md', (dialect) => {
  const s = useTestService(dialect, {
    env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' },
  });
  const dir = mkdtempSync(join(tmpdir(), `presence-set-by-hand-${dialect}-`));
  let approval: Json;
  let keys: Json;
  const receipts: Record<string, Json> = {};

  beforeAll(async () => {
    const people = {
      alice: await s.enroll('alice'),
      bob: await s.enroll('bob'),
      carol: await s.enroll('carol'),
    };
    const created = await s.request('POST', '/v1/approvals', {
      action: { type: 'deploy', service: 'payments-api', version: '2026.11.27-1', environment: 'production' },
      approvers: ['alice', 'bob', 'carol'],
      required: 2,
      initiator: 'ci-pipeline',
      title: 'Deploy payments-api to production',
    });
    const token = tokenOf(created.json.approvalUrl);
    for (const who of [people.alice, people.carol]) {
      expect((await ceremony(s, token, 'approve', who.authenticator)).json.recorded).toBe(true);
    }
    approval = (await s.request('GET', `/v1/approvals/${created.json.approvalId}`)).json;
    expect(approval.status).toBe('approved');
    keys = (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json;
    for (const entry of approval.approvalSet.approvalSet.approvals) {
      receipts[entry.receiptId] = (await s.request('GET', `/v1/presence/receipts/${entry.receiptId}`)).json;
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes the three inputs into a fresh directory and runs `script` there with sh. */
  function run(files: { approval?: Json; keys?: Json; receipts?: Record<string, Json> }, script = SCRIPT) {
    const cwd = mkdtempSync(join(dir, 'run-'));
    mkdirSync(join(cwd, 'receipts'));
    const withTestKey = clone(files.keys ?? keys);
    withTestKey.keys.push({
      kid: TEST_KID,
      alg: 'Ed25519',
      publicKeyPem: testKey.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      notBefore: '2000-01-01T00:00:00.000Z',
      notAfter: null,
      status: 'active',
    });
    writeFileSync(join(cwd, 'approval.json'), JSON.stringify(files.approval ?? approval));
    writeFileSync(join(cwd, 'keys.json'), JSON.stringify(withTestKey));
    for (const [id, r] of Object.entries(files.receipts ?? receipts))
      writeFileSync(join(cwd, 'receipts', `${id}.json`), JSON.stringify(r));
    const result = spawnSync('sh', ['-c', script], { cwd, encoding: 'utf8' });
    return { code: result.status, out: result.stdout + result.stderr, cwd };
  }

  /** The approval with its set changed by `mutate` and signed again with the test key. */
  const forged = (mutate: (set: Json) => void) => ({
    ...clone(approval),
    approvalSet: resigned(approval.approvalSet, 'approvalSet', 'approvalSetHashHex', mutate),
  });

  it.skipIf(missing.length > 0)(
    'the real set passes every check, and the Python bytes are the jq bytes',
    () => {
      const good = run({});
      expect(good.out).toMatch(/OK +set-hash\n/);
      expect(good.out).toMatch(/OK +quorum\n/);
      expect(good.out.match(/OK +signature of receipt\.json/g)).toHaveLength(2);
      expect(good.out).toContain('every check above passed');
      expect(good.code).toBe(0);
      expect(readFileSync(join(good.cwd, 'set.json'), 'utf8')).toBe(
        canonicalJson(approval.approvalSet.approvalSet),
      );
      const python = run({}, PYTHON);
      expect(python.code).toBe(0);
      expect(readFileSync(join(python.cwd, 'set.json'), 'utf8')).toBe(
        canonicalJson(approval.approvalSet.approvalSet),
      );
    },
  );

  it.skipIf(missing.length > 0)(
    'each tampering is refused by the check it breaks',
    () => {
      const cases: [string, Parameters<typeof run>[0], RegExp][] = [];
      const titled = clone(approval);
      titled.approvalSet.approvalSet.title = 'Deploy to staging';
      cases.push(['an edited set', { approval: titled }, /FAIL +set-hash/]);
      const rehashed = clone(titled);
      rehashed.approvalSet.approvalSetHashHex = sha256(canonicalJson(rehashed.approvalSet.approvalSet));
      cases.push(['an edited set, hash recomputed', { approval: rehashed }, /FAIL +signature of set\.json/]);
      cases.push([
        'a version 2 set',
        { approval: forged((x) => (x.version = 'presence.approval-set.v2')) },
        /FAIL +version/,
      ]);
      const expiredKeys = clone(keys);
      for (const k of expiredKeys.keys) k.notAfter = '2001-01-01T00:00:00.000Z';
      cases.push(['a key retired before decidedAt', { keys: expiredKeys }, /FAIL +key-valid-at-decidedAt/]);
      cases.push([
        'another action',
        { approval: forged((x) => (x.action.environment = 'staging')) },
        /FAIL +action-hash/,
      ]);
      cases.push(['a higher quorum', { approval: forged((x) => (x.required = 3)) }, /FAIL +quorum/]);
      cases.push([
        'the initiator approving',
        { approval: forged((x) => (x.initiator = 'alice')) },
        /FAIL +quorum/,
      ]);
      cases.push([
        'a subject not listed',
        { approval: forged((x) => (x.approvers = ['bob', 'carol'])) },
        /FAIL +quorum/,
      ]);
      const twice = forged((x) => x.approvals.push(clone(x.approvals[0])));
      cases.push(['one approver twice', { approval: twice }, /FAIL +quorum/]);
      const swapped = forged(
        (x) =>
          ([x.approvals[0].subject, x.approvals[1].subject] = [
            x.approvals[1].subject,
            x.approvals[0].subject,
          ]),
      );
      cases.push(['subjects swapped between receipts', { approval: swapped }, /FAIL +rct_\w+ subject/]);

      const [firstId] = Object.keys(receipts) as [string];
      const editReceipt = (mutate: (r: Json) => void, resign: boolean) => {
        const edited = clone(receipts);
        if (resign) edited[firstId] = resigned(receipts[firstId], 'receipt', 'receiptHashHex', mutate);
        else mutate(edited[firstId].receipt);
        const hash = edited[firstId].receiptHashHex;
        const set = forged(
          (x) => (x.approvals.find((e: Json) => e.receiptId === firstId).receiptHashHex = hash),
        );
        return { approval: resign ? set : approval, receipts: edited };
      };
      cases.push([
        'an edited receipt',
        editReceipt((r) => (r.purpose = 'other'), false),
        /FAIL +rct_\w+ hash/,
      ]);
      const badSignature = clone(receipts);
      badSignature[firstId].signature.signatureB64Url = approval.approvalSet.signature.signatureB64Url;
      cases.push([
        'a receipt signature of other bytes',
        { receipts: badSignature },
        /FAIL +signature of receipt\.json/,
      ]);
      cases.push([
        'a receipt of another tenant',
        editReceipt((r) => (r.tenantId = 'ten_01J00000000000000000000000'), true),
        /FAIL +rct_\w+ tenant/,
      ]);
      cases.push([
        'a receipt of another action',
        editReceipt((r) => (r.actionHashHex = sha256('other')), true),
        /FAIL +rct_\w+ action/,
      ]);

      for (const [name, files, refusal] of cases) {
        const result = run(files);
        expect({ name, code: result.code === 0 ? 0 : 1, out: result.out }).toMatchObject({
          name,
          code: 1,
          out: expect.stringMatching(refusal),
        });
        expect(result.out, name).not.toContain('every check above passed');
      }
    },
    120_000,
  );
});
