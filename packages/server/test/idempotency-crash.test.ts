/**
 * A crash never counts: a real process runs an idempotent change and is killed (SIGKILL) while its
 * transaction holds the key, before the response is stored. On both databases nothing of it
 * survives — no change, no key — and the retry then commits exactly once. Runs the built `dist/`
 * (npx tsc -b packages/server), like the other multi-process tests.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startIdempotentExecution } from '../src/domain/idempotency/start-idempotent-execution.js';
import { createSecretBox } from '../src/domain/secrets.js';
import { seedTenant, TestRecords } from '../src/storage/test-records.js';
import { openTestStore, type TestStore } from '../src/storage/testing.js';
import { describeEachDialect } from './support/each-dialect.js';

const dist = (path: string) => pathToFileURL(fileURLToPath(new URL(`../dist/${path}`, import.meta.url))).href;

/** The child: open the store, run the change under the key, say so, then hang until killed. */
const CHILD = `
import { randomBytes } from 'node:crypto';
import { openStore } from '${dist('storage/open-store.js')}';
import { createSecretBox } from '${dist('domain/secrets.js')}';
import { startIdempotentExecution } from '${dist('domain/idempotency/start-idempotent-execution.js')}';
const { options, tenant, request } = JSON.parse(process.env.CRASH_INPUT);
const store = await openStore(options);
const secrets = createSecretBox(randomBytes(32), { bytes: (n) => randomBytes(n) });
const execution = startIdempotentExecution({ store, clock: { now: () => Date.now() }, secrets }, request);
await execution.deps.store.transaction((tx) => tx.tenants.insert(tenant));
process.stdout.write('HOLDING\\n');
setInterval(() => {}, 1000);
`;

function runAndKill(input: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: { ...process.env, CRASH_INPUT: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('HOLDING')) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`the child exited on its own: ${stderr}`)),
    );
  });
}

describeEachDialect('an idempotent change killed mid-flight', (dialect) => {
  let db: TestStore;
  let tenantId: string;
  const records = new TestRecords();
  beforeAll(async () => {
    db = await openTestStore(dialect);
    tenantId = (await seedTenant(db.store, records)).tenant.id;
  });
  afterAll(async () => db?.cleanup());

  it('leaves neither change nor key, and the retry commits once', async () => {
    const request = {
      tenantId,
      key: 'crash-1',
      fingerprintHex: 'c'.repeat(64),
      method: 'POST',
      route: '/v1/x',
    };
    const victim = records.tenant({ name: 'crash-victim' });
    await runAndKill({ options: db.options, tenant: victim, request });
    const named = async () => (await db.store.tenants.list()).filter((t) => t.name === 'crash-victim');
    expect(await named()).toEqual([]);
    expect(await db.store.idempotency.get(tenantId, 'crash-1')).toBeUndefined();

    const secrets = createSecretBox(randomBytes(32), { bytes: (n: number) => randomBytes(n) });
    const retry = startIdempotentExecution(
      { store: db.store, clock: { now: () => Date.now() }, secrets },
      request,
    );
    await retry.deps.store.transaction((tx) => tx.tenants.insert(victim));
    const body = { statusCode: 201, contentType: 'application/json', body: '{}' };
    expect(await retry.finish(body)).toEqual({ kind: 'stored' });
    expect(await named()).toHaveLength(1);
  });
});
