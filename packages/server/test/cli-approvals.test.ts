/**
 * `presence approvals request` and `presence approvals get` (the built CLI) against a real server
 * process on each database: every exit code of --wait (0 approved, 3 rejected, 4 cancelled or
 * expired, 5 the wait ended first, 1 refused by the service, 2 bad usage), the --json lines, and
 * the human output (link, binding code, QR code, approval set hash). The approvers decide through
 * the hosted page's ceremony endpoints with software authenticators.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { startCli } from './support/cli-process.js';
import {
  createTenantWithCli,
  createTestDatabase,
  runCli,
  type ServerProcess,
  serviceBuilt,
  startServerProcess,
} from './support/server-process.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';

const ORIGIN = 'https://app.example';
const built = serviceBuilt('CLI approval tests');

describeEachDialect('presence approvals (CLI) against a server process', (dialect) => {
  if (!built) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-cli-apr-'));
  const actionFile = join(dataDir, 'action.json');
  const env: Record<string, string> = {
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_PUBLIC_ORIGIN: ORIGIN,
    PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0',
  };
  let server: ServerProcess;
  let dropDatabase = async () => {};
  let cliEnv: Record<string, string> = {};
  const people: Record<string, SoftAuthenticator> = {};

  const call = async (method: string, path: string, body?: unknown, auth = true) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${cliEnv['PRESENCE_API_KEY']}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  async function enroll(subject: string) {
    const authenticator = new SoftAuthenticator('app.example', ORIGIN);
    const options = await call('POST', '/v1/presence/credentials/options', { subject });
    const enrolled = await call('POST', '/v1/presence/credentials', {
      registrationId: options.json.registrationId,
      credential: authenticator.register({ challenge: options.json.publicKey.challenge }),
    });
    expect(enrolled.status).toBe(201);
    people[subject] = authenticator;
  }

  /** One decision on the hosted page's endpoints, as the approver's browser would make it. */
  async function decide(approvalUrl: string, subject: string, intent: 'approve' | 'reject') {
    const token = approvalUrl.slice(`${ORIGIN}/approve/`.length);
    const options = await call('POST', `/approve/${token}/options`, { intent }, false);
    expect(options.status).toBe(200);
    const assertion = people[subject]!.assert({ challenge: options.json.publicKey.challenge });
    const decided = await call(
      'POST',
      `/approve/${token}/decide`,
      { challengeId: options.json.challengeId, assertion },
      false,
    );
    expect(decided.json).toMatchObject({ recorded: true });
  }

  /** Moves the approval's expiry into the past in the database, as time passing would. */
  async function expireNow(approvalId: string) {
    const past = Date.now() - 1000;
    if (dialect === 'sqlite') {
      const db = new Database(join(dataDir, 'presence.sqlite'));
      db.prepare('UPDATE approvals SET expires_at = ? WHERE id = ?').run(past, approvalId);
      db.close();
    } else {
      const client = new pg.Client({ connectionString: env['DATABASE_URL'] });
      await client.connect();
      await client.query('UPDATE approvals SET expires_at = $1 WHERE id = $2', [past, approvalId]);
      await client.end();
    }
  }

  const request = (extra: string[]) => [
    'approvals',
    'request',
    '--url',
    server.url,
    '--action',
    actionFile,
    ...extra,
  ];

  /** Starts `request … --json --wait…`, returns the created approval and the running process. */
  async function startWaiting(action: object, extra: string[]) {
    writeFileSync(actionFile, JSON.stringify(action));
    const running = startCli(request([...extra, '--json']), cliEnv);
    const created = JSON.parse(await running.firstLine()) as { approvalId: string; approvalUrl: string };
    return { created, done: running.done };
  }

  const lastLine = (out: string) => JSON.parse(out.trim().split('\n').at(-1)!) as any;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      const db = await createTestDatabase('presence_cli_apr');
      env['DATABASE_URL'] = db.url;
      dropDatabase = db.drop;
    }
    cliEnv = { PRESENCE_API_KEY: createTenantWithCli('cli approvals', env).apiKey };
    server = await startServerProcess(env);
    for (const subject of ['alice', 'bob', 'carol']) await enroll(subject);
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('without --wait: prints the link, the binding code and a QR code; get reads it back', async () => {
    writeFileSync(actionFile, JSON.stringify({ type: 'deploy', service: 'api', version: '1.4.2' }));
    const human = runCli(request(['--approver', 'alice', '--title', 'Deploy api 1.4.2']), cliEnv);
    expect(human.code).toBe(0);
    const id = /approval (apr_\w+) created/.exec(human.out)![1]!;
    expect(human.out).toMatch(new RegExp(`link +${ORIGIN}/approve/[A-Za-z0-9_-]{43}\\n`));
    expect(human.out).toMatch(/binding code +[A-Z0-9]{6} /);
    expect(human.out).toMatch(/[▀▄█]{7}/); // the QR code's finder patterns
    const json = runCli(request(['--approver', 'alice', '--approver', 'bob', '--json']), cliEnv);
    expect(json.code).toBe(0);
    const lines = json.out.trim().split('\n');
    expect(lines).toHaveLength(1); // no QR code with --json
    expect(JSON.parse(lines[0]!)).toMatchObject({
      approvalId: expect.stringMatching(/^apr_/),
      status: 'pending',
      required: 1,
      approvers: [
        { subject: 'alice', decision: null },
        { subject: 'bob', decision: null },
      ],
      bindingCode: expect.stringMatching(/^[A-Z0-9]{6}$/),
      approvalUrl: expect.stringMatching(/^https:\/\/app\.example\/approve\//),
      action: { type: 'deploy', service: 'api', version: '1.4.2' },
    });
    const got = runCli(['approvals', 'get', id, '--url', server.url, '--json'], cliEnv);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.out)).toMatchObject({
      approvalId: id,
      status: 'pending',
      title: 'Deploy api 1.4.2',
    });
    expect(JSON.parse(got.out)).not.toHaveProperty('approvalUrl');
    const text = runCli(['approvals', 'get', id, '--url', server.url], cliEnv);
    expect(text.out).toMatch(/: pending\n[\s\S]*approver +alice: undecided/);
  }, 60_000);

  it('--wait exits 0 once two approvers approved and prints the approval set hash', async () => {
    writeFileSync(actionFile, JSON.stringify({ type: 'deploy', run: 'human' }));
    const args = ['--approver', 'alice', '--approver', 'bob', '--approver', 'carol', '--required', '2'];
    const running = startCli(request([...args, '--initiator', 'dave', '--wait=60']), cliEnv);
    const url = (await running.stdoutMatch(/link +(\S+)\n/))[1]!;
    await decide(url, 'alice', 'approve');
    await decide(url, 'carol', 'approve');
    const outcome = await running.done;
    expect(outcome.code).toBe(0);
    const id = /approval (apr_\w+)/.exec(outcome.out)![1]!;
    const read = await call('GET', `/v1/approvals/${id}`);
    expect(read.json.status).toBe('approved');
    expect(outcome.out).toContain(`approval set  ${read.json.approvalSet.approvalSetHashHex}`);
  }, 60_000);

  it('--wait --json: the second line is the approval as GET returns it, approval set included', async () => {
    const { created, done } = await startWaiting({ type: 'deploy', run: 'json' }, [
      '--approver',
      'alice',
      '--approver',
      'bob',
      '--required',
      '2',
      '--wait=60',
    ]);
    await decide(created.approvalUrl, 'bob', 'approve');
    await decide(created.approvalUrl, 'alice', 'approve');
    const outcome = await done;
    expect(outcome.code).toBe(0);
    expect(outcome.err).toContain(created.approvalUrl);
    const final = lastLine(outcome.out);
    expect(final).toEqual((await call('GET', `/v1/approvals/${created.approvalId}`)).json);
    expect(final.approvalSet.approvalSet).toMatchObject({
      version: 'presence.approval-set.v1',
      approvalId: created.approvalId,
      required: 2,
    });
  }, 60_000);

  it('exits 3 when rejected, 4 when cancelled or expired, 5 when the wait ends first', async () => {
    const two = ['--approver', 'alice', '--approver', 'bob', '--required', '2', '--wait'];
    const rejected = await startWaiting({ type: 'deploy', run: 'reject' }, two);
    await decide(rejected.created.approvalUrl, 'bob', 'reject');
    expect((await rejected.done).code).toBe(3);
    expect(lastLine((await rejected.done).out).status).toBe('rejected');

    const cancelled = await startWaiting({ type: 'deploy', run: 'cancel' }, two);
    expect((await call('POST', `/v1/approvals/${cancelled.created.approvalId}/cancel`)).status).toBe(200);
    expect((await cancelled.done).code).toBe(4);
    expect(lastLine((await cancelled.done).out).status).toBe('cancelled');

    const expired = await startWaiting({ type: 'deploy', run: 'expire' }, two);
    await expireNow(expired.created.approvalId);
    expect((await expired.done).code).toBe(4);
    expect(lastLine((await expired.done).out).status).toBe('expired');

    const short = await startWaiting({ type: 'deploy', run: 'short' }, ['--approver', 'alice', '--wait=1']);
    const ended = await short.done;
    expect(ended.code).toBe(5);
    expect(lastLine(ended.out)).toMatchObject({ approvalId: short.created.approvalId, status: 'pending' });
  }, 90_000);

  it('exits 1 when the service refuses (nothing created) and 2 on bad usage', async () => {
    writeFileSync(actionFile, JSON.stringify({ type: 'deploy', run: 'refused' }));
    const before = (await call('GET', '/v1/approvals?limit=100')).json.data.length;
    const initiatorApproves = runCli(request(['--approver', 'alice', '--initiator', 'alice']), cliEnv);
    expect(initiatorApproves.code).toBe(1);
    expect(initiatorApproves.err).toMatch(/400 invalid_request/);
    const badKey = runCli(request(['--approver', 'alice']), { PRESENCE_API_KEY: 'pk_wrong' });
    expect(badKey.code).toBe(1);
    expect(badKey.err).toMatch(/401/);
    expect((await call('GET', '/v1/approvals?limit=100')).json.data.length).toBe(before);
    const missing = runCli(
      ['approvals', 'get', 'apr_01J00000000000000000000000', '--url', server.url],
      cliEnv,
    );
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/404 not_found/);

    expect(runCli(request([]), cliEnv).code).toBe(2); // no --approver
    expect(runCli(request(['--approver', 'alice', '--wait=soon']), cliEnv).code).toBe(2);
    expect(runCli(request(['--approver', 'alice', '--required', 'two']), cliEnv).code).toBe(2);
    expect(runCli(request(['--approver', 'alice', '--bogus']), cliEnv).code).toBe(2);
    writeFileSync(actionFile, '[1, 2]');
    expect(runCli(request(['--approver', 'alice']), cliEnv)).toMatchObject({ code: 2, err: /JSON object/ });
    expect(runCli(request(['--approver', 'alice']), {})).toMatchObject({ code: 2, err: /PRESENCE_API_KEY/ });
    expect(runCli(['approvals', 'get', '--url', server.url], cliEnv).code).toBe(2);
    expect(runCli(['approvals', 'request', '--help'], {})).toMatchObject({ code: 0, out: /exit codes: 0/ });
  }, 60_000);
});
