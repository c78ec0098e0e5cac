/**
 * The SDK as people get it: `npm pack` of packages/sdk gives ONE tarball, which the running service
 * serves at GET /sdk/presence-sdk.tgz; `npm install <origin>/sdk/presence-sdk.tgz` installs it alone
 * in an empty project (no @presence/contract beside it) and works there from ESM, CommonJS
 * `require` and TypeScript, with every bin it declares. The evidence it checks is real: a receipt
 * and an export pack from the service, and a webhook signed by the service's own signer.
 * Beside it, GET /sdk/presence-guard.tar.gz serves the Python guard's sdist that `npm run build`
 * writes in Node (packages/python/scripts/pack-sdist.mjs): a standard sdist of the pyproject's name
 * and version (the SDK's version too), every module and py.typed. cross-language.test.ts installs
 * it with pip.
 */
import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../src/domain/webhooks/sign-webhook.js';
import { fetchPack, publishedKeys } from './support/export-pack.js';
import { seedReceipts } from './support/seed-receipts.js';
import { startTestService, type TestService } from './support/test-service.js';
import { CONSUMER_CJS, CONSUMER_ESM, CONSUMER_TS } from './support/sdk-consumer.js';

const SDK_DIR = fileURLToPath(new URL('../../sdk/', import.meta.url));
const PACK_SDK = fileURLToPath(new URL('../../sdk/scripts/pack-sdk.mjs', import.meta.url));
const PYTHON_DIR = fileURLToPath(new URL('../../python/', import.meta.url));
const TYPES_DIR = fileURLToPath(new URL('../../../node_modules/@types/', import.meta.url));
const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
// npm run inside `npm test` passes npm_* settings (workspace, prefix) that must not reach the consumer's npm.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);

const execFileAsync = promisify(execFile);

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: cleanEnv, encoding: 'utf8', timeout: 240_000 });
}
function ok(result: SpawnSyncReturns<string>): string {
  if (result.status !== 0) throw new Error(`exit ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe('the @presence/sdk tarball the service serves, installed alone into an empty project', () => {
  let s: TestService;
  let dir: string;
  let app: string;
  let tarball: { filename: string; files: { path: string }[] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'presence-sdk-tarball-'));
    app = join(dir, 'app');
    mkdirSync(app);
    s = await startTestService('sqlite');
    const { authenticator } = await s.enroll('tarball-user');
    const [receipt] = await seedReceipts(s.composed.deps, s.tenantId, authenticator, 2, {
      issuedAt: (i) => BASE + i * 1000,
    });
    const signed = await s.request('GET', `/v1/presence/receipts/${receipt!.id}`);
    writeFileSync(join(app, 'receipt.json'), JSON.stringify(signed.json));
    writeFileSync(join(app, 'keys.json'), JSON.stringify({ keys: await publishedKeys(s) }));
    const pack = await fetchPack(s, `from=${iso(BASE)}&to=${iso(BASE + 60_000)}`);
    writeFileSync(join(app, 'pack.zip'), pack.zip);
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'receipt.created',
      createdAt: iso(BASE),
      data: { receiptId: receipt!.id },
    });
    const headers = webhookHeaders({
      secrets: [secret],
      timestamp: Math.floor(Date.now() / 1000),
      deliveryId: 'dlv_1',
      eventType: 'receipt.created',
      body,
    });
    writeFileSync(join(app, 'webhook.json'), JSON.stringify({ secret, headers, body }));

    const packed = ok(run('npm', ['pack', '--json', '--pack-destination', dir], SDK_DIR));
    const list = JSON.parse(packed.slice(packed.indexOf('['))) as (typeof tarball)[];
    expect(list).toHaveLength(1);
    tarball = list[0]!;
    // What `npm run build` does: the same tarball into packages/server/dist/sdk/, which the service serves.
    ok(run(process.execPath, [PACK_SDK], SDK_DIR));
    const origin = await s.composed.app.listen({ host: '127.0.0.1', port: 0 });
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'commonjs' }),
    );
    // Asynchronously: the service answering npm's download runs in this process.
    await execFileAsync(
      'npm',
      [
        'install',
        `${origin}/sdk/presence-sdk.tgz`,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
      ],
      { cwd: app, env: cleanEnv, timeout: 240_000 },
    );
  }, 300_000);

  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries the compiled contract inside and depends on no other @presence package', () => {
    const paths = tarball.files.map((f) => f.path);
    expect(paths).toContain('dist/contract/index.js');
    expect(paths).toContain('dist/contract/index.d.ts');
    expect(paths.filter((p) => p.includes('.test.'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@presence/sdk/package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@presence/'))).toEqual([]);
    expect(existsSync(join(app, 'node_modules/@presence/contract'))).toBe(false);
    const consumer = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    expect(consumer.dependencies['@presence/sdk']).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/sdk\/presence-sdk\.tgz$/,
    );
  });

  it('works from ESM: client, computeActionHash, verifyWebhook, receipt and pack verifiers', () => {
    writeFileSync(join(app, 'consumer.mjs'), CONSUMER_ESM);
    const out = JSON.parse(ok(run(process.execPath, ['consumer.mjs'], app)));
    expect(out).toEqual({
      actionHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      sameHashSync: true,
      challengeId: 'chl_01JD3W4Q8M2N5P7R9T1V3X5Z7B',
      webhook: { type: 'receipt.created', scheme: 'presence' },
      standardOnly: 'standard-webhooks',
      receiptValid: true,
      packValid: true,
    });
  });

  it('works from CommonJS require', () => {
    writeFileSync(join(app, 'consumer.cjs'), CONSUMER_CJS);
    const out = JSON.parse(ok(run(process.execPath, ['consumer.cjs'], app)));
    expect(out).toEqual({
      client: 'function',
      sameHash: true,
      webhookType: 'receipt.created',
      verifyPack: 'function',
    });
  });

  it('runs every bin it declares with --help, and presence-verify on the real pack', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@presence/sdk/package.json'), 'utf8'));
    const bins = Object.keys(manifest.bin as Record<string, string>);
    expect(bins).toContain('presence-verify');
    for (const bin of bins) {
      const help = run(join(app, 'node_modules/.bin', bin), ['--help'], app);
      expect(help.status, `${bin} --help: ${help.stderr}`).toBe(0);
      expect(help.stdout).toMatch(/usage/i);
    }
    const verified = run(
      join(app, 'node_modules/.bin/presence-verify'),
      ['pack.zip', '--keys', 'keys.json'],
      app,
    );
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
  });

  it('type-checks a TypeScript consumer, whose declarations name the resources and events', () => {
    writeFileSync(join(app, 'consumer.ts'), CONSUMER_TS);
    const program = ts.createProgram([join(app, 'consumer.ts')], {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      declaration: true,
      emitDeclarationOnly: true,
      outDir: join(app, 'out'),
      typeRoots: [TYPES_DIR],
      types: ['node'],
      // The SDK's declarations are checked through their use below (and @ts-expect-error lines
      // that fail if its types ever degrade to any); re-checking @types/node would only cost time.
      skipLibCheck: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    let declarations = '';
    program.emit(undefined, (_name, text) => (declarations += text));
    // A name, possibly qualified as import("@presence/sdk", …).Name; never an inline structure.
    const named = (name: string) => `(import\\("@presence/sdk[^)]*\\)\\.)?${name}`;
    expect(declarations).toMatch(new RegExp(`created: Promise<${named('ChallengeCreated')}>`));
    expect(declarations).toMatch(new RegExp(`receipt: Promise<${named('SignedReceipt')}>`));
    expect(declarations).toMatch(new RegExp(`endpoint: Promise<${named('WebhookEndpointWithSecret')}>`));
    expect(declarations).toMatch(new RegExp(`event: ${named('VerifiedWebhook')};`));
    expect(declarations).not.toMatch(/#contract|@presence\/contract/);
  }, 120_000);
});

/** The members of a ustar archive: name (with its prefix) and data. */
function untar(archive: Buffer): Map<string, Buffer> {
  const members = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= archive.length && archive[at] !== 0;) {
    const text = (from: number, length: number) =>
      archive.toString('utf8', at + from, at + from + length).replace(/\0.*$/s, '');
    const size = parseInt(text(124, 12), 8);
    const prefix = text(345, 155);
    members.set((prefix ? `${prefix}/` : '') + text(0, 100), archive.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return members;
}

describe('the Python guard sdist the service serves at GET /sdk/presence-guard.tar.gz', () => {
  let s: TestService;
  beforeAll(async () => {
    // What `npm run build` does, with no Python involved.
    ok(run(process.execPath, [join(PYTHON_DIR, 'scripts/pack-sdist.mjs')], PYTHON_DIR));
    s = await startTestService('sqlite');
  }, 60_000);
  afterAll(() => s?.close());

  it('is a gzipped sdist named and versioned as pyproject.toml says, the SDK version, with every module and py.typed', async () => {
    const res = await s.composed.app.inject({ method: 'GET', url: '/sdk/presence-guard.tar.gz' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="presence-guard.tar.gz"');
    const members = untar(gunzipSync(res.rawPayload));
    const pyproject = readFileSync(join(PYTHON_DIR, 'pyproject.toml'), 'utf8');
    const version = /^version = "([^"]+)"$/m.exec(pyproject)?.[1];
    const sdkVersion = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')).version;
    expect(version).toBe(sdkVersion);
    const top = `presence-guard-${version}`;
    const pkgInfo = members.get(`${top}/PKG-INFO`)?.toString('utf8') ?? '';
    expect(pkgInfo).toMatch(/^Metadata-Version: 2\.1\nName: presence-guard\n/);
    expect(pkgInfo).toContain(`\nVersion: ${version}\n`);
    expect(pkgInfo).toContain('\nRequires-Dist: cryptography');
    expect(members.get(`${top}/pyproject.toml`)?.toString('utf8')).toBe(pyproject);
    const modules = readdirSync(join(PYTHON_DIR, 'src/presence_guard')).filter(
      (f) => f.endsWith('.py') || f === 'py.typed',
    );
    expect(modules).toContain('py.typed');
    expect([...members.keys()].sort()).toEqual(
      ['PKG-INFO', 'README.md', 'pyproject.toml', ...modules.map((m) => `src/presence_guard/${m}`)]
        .map((m) => `${top}/${m}`)
        .sort(),
    );
  });
});
