/**
 * Runs examples/deploy-approval/deploy.sh with sh, as a CI system would, against a real service
 * over HTTP on each database, with the built `presence` CLI; the approvers decide on the hosted
 * page's endpoints with software authenticators. Approved by two: the evidence is saved and
 * checked, and the deploy command runs; rejected or not decided in time: it never runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { startCli } from './support/cli-process.js';
import { describeEachDialect } from './support/each-dialect.js';
import { serviceBuilt } from './support/server-process.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/deploy-approval/', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const DOC = readFileSync(new URL('../../../docs/evidence.md', import.meta.url), 'utf8');
const built = serviceBuilt('examples/deploy-approval test');
const tools = ['jq', 'curl', 'sha256sum', 'openssl'].every(
  (t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0,
);
if (!tools && process.env['CI'] === 'true') throw new Error('jq, curl, sha256sum or openssl missing');

it('verify-approval-set.sh is the script of docs/evidence.md §12, word for word', () => {
  const block = /<!-- approval-set-by-hand: begin -->\n```sh\n([\s\S]*?)```/.exec(DOC)![1]!;
  expect(readFileSync(join(EXAMPLE, 'verify-approval-set.sh'), 'utf8').endsWith(block)).toBe(true);
});

describeEachDialect('examples/deploy-approval/deploy.sh', (dialect) => {
  if (!built || !tools) return;
  const s = useTestService(dialect, {
    env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' },
  });
  const work = mkdtempSync(join(tmpdir(), `presence-deploy-example-${dialect}-`));
  const people: Record<string, SoftAuthenticator> = {};
  let url = '';

  beforeAll(async () => {
    url = await s.listen();
    for (const subject of ['alice', 'bob', 'carol'])
      people[subject] = (await s.enroll(subject)).authenticator;
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Starts the script for one run; `deployed` is the file the deploy command writes. */
  function deploy(run: string, extra: Record<string, string> = {}) {
    const evidence = join(work, run, 'evidence');
    const deployed = join(work, run, 'deployed.txt');
    const running = startCli(
      [],
      {
        PRESENCE_URL: url,
        PRESENCE_API_KEY: s.apiKey,
        PRESENCE_CLI: `${process.execPath} ${CLI}`,
        APPROVERS: 'alice bob carol',
        INITIATOR: 'ci-bot',
        SERVICE: 'payments-api',
        VERSION: '2026.11.27-1',
        ENVIRONMENT: 'production',
        RUN_ID: run,
        EVIDENCE_DIR: evidence,
        DEPLOY_COMMAND: `echo "deployed with $APPROVAL_SET_HASH" > ${deployed}`,
        ...extra,
      },
      'sh',
      [join(EXAMPLE, 'deploy.sh')],
    );
    return { running, evidence, deployed };
  }

  const linkOf = async (running: ReturnType<typeof startCli>) =>
    tokenOf((await running.stderrMatch(/approval link: (\S+) \(binding code [A-Z0-9]{6}\)/))[1]!);

  it('two approvals: the evidence is saved and checks out, then the deploy runs (exit 0)', async () => {
    const { running, evidence, deployed } = deploy('run-approved');
    const token = await linkOf(running);
    expect((await ceremony(s, token, 'approve', people['alice']!)).json.recorded).toBe(true);
    expect(existsSync(deployed)).toBe(false); // one of two: still waiting
    expect((await ceremony(s, token, 'approve', people['carol']!)).json.recorded).toBe(true);
    const outcome = await running.done;
    expect(outcome.code, outcome.err).toBe(0);
    const approval = JSON.parse(readFileSync(join(evidence, 'approval.json'), 'utf8'));
    expect(approval.approvalSet.approvalSet).toMatchObject({
      action: { type: 'deploy', service: 'payments-api', environment: 'production', runId: 'run-approved' },
      required: 2,
      initiator: 'ci-bot',
    });
    expect(readFileSync(deployed, 'utf8')).toBe(`deployed with ${approval.approvalSet.approvalSetHashHex}\n`);
    const receipts = readdirSync(join(evidence, 'receipts'));
    expect(receipts.filter((f) => f.endsWith('.check.txt'))).toHaveLength(2);
    for (const f of receipts.filter((r) => r.endsWith('.check.txt')))
      expect(readFileSync(join(evidence, 'receipts', f), 'utf8')).toMatch(/^VALID receipt rct_/m);
    // An auditor reruns the stock-tools check on the saved evidence, offline.
    const again = spawnSync('sh', [join(EXAMPLE, 'verify-approval-set.sh'), evidence], { encoding: 'utf8' });
    expect(again.status, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/OK +quorum/);
  }, 90_000);

  it('rejected by two of three: exit 3 and no deploy; no decision in time: exit 5 and no deploy', async () => {
    const rejected = deploy('run-rejected');
    const token = await linkOf(rejected.running);
    await ceremony(s, token, 'reject', people['bob']!);
    await ceremony(s, token, 'reject', people['carol']!);
    const outcome = await rejected.running.done;
    expect(outcome.code).toBe(3);
    expect(outcome.err).toContain('deploy refused: the approvers rejected it');
    expect(existsSync(rejected.deployed)).toBe(false);

    const late = deploy('run-late', { WAIT_SECONDS: '1' });
    const ended = await late.running.done;
    expect(ended.code).toBe(5);
    expect(existsSync(late.deployed)).toBe(false);
  }, 90_000);

  it('exits 2 when a required variable is missing', async () => {
    const outcome = await deploy('run-unset', { DEPLOY_COMMAND: '' }).running.done;
    expect(outcome.code).toBe(2);
    expect(outcome.err).toMatch(/DEPLOY_COMMAND/);
  });
});
