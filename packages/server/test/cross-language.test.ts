/**
 * The executor's guards in the three languages (docs/executor-guards.md): the Python package's
 * and the Go module's own suites over every shared vector (conformance/cross-language/), and each
 * language's command line, plus the TypeScript SDK, on a receipt and an approval set made just now
 * by a running service on each database: a 2-of-3 approval with an initiator created with
 * POST /v1/approvals, approved by two approvers on the hosted page's endpoints, and the set the
 * service signed, with its receipts and keys.json as the API serves them. The Python guard's sdist
 * as the service serves it (GET /sdk/presence-guard.tar.gz) installs with a stock pip, offline, and
 * builds a wheel that carries py.typed. Without python3 + cryptography (+ pip and setuptools for
 * the sdist) or go, the suite skips with the reason printed; with CI=true it fails instead (.ci/run
 * installs them from Debian).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  checkEvidence,
  computeActionHashSync,
  verifyApprovalSet,
  type ApprovalSetEvidence,
  type ServiceKey,
} from '@presence/sdk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuedApproval, type IssuedApproval } from './support/approvals.js';
import { receiptOf } from './support/cross-language/approval-evidence.js';
import type { SignedEvidence } from './support/cross-language/vector-signer.js';
import { describeEachDialect } from './support/each-dialect.js';
import { ORIGIN, startTestService, useTestService, type TestService } from './support/test-service.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PYTHON_DIR = join(ROOT, 'packages/python');
const GO_DIR = join(ROOT, 'packages/go');
const GO_ENV = { ...process.env, GOPROXY: 'off', GOFLAGS: '-buildvcs=false', GOTOOLCHAIN: 'local' };

function findPython(imports = 'cryptography'): string | null {
  const candidates = [process.env['PRESENCE_PYTHON'], 'python3', '/usr/bin/python3'].filter(
    (c): c is string => !!c,
  );
  return (
    candidates.find((p) => spawnSync(p, ['-c', `import ${imports}`], { stdio: 'ignore' }).status === 0) ??
    null
  );
}

function available(what: string, found: boolean, install: string): boolean {
  if (found) return true;
  const reason = `${what} is not installed (${install})`;
  if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it`);
  console.warn(`cross-language ${what} tests skipped: ${reason}`);
  return false;
}

const python = findPython();
const pythonUp = available(
  'python3 with cryptography',
  python !== null,
  'apt-get install python3-cryptography',
);
// The python3 that builds and installs the sdist: a stock pip with setuptools and wheel.
const pipPython = pythonUp ? findPython('cryptography, setuptools, wheel, pip') : null;
const pipUp =
  pythonUp &&
  available(
    'python3 with pip, setuptools and wheel',
    pipPython !== null,
    'apt-get install python3-pip python3-setuptools python3-wheel',
  );
const goUp = available(
  'go',
  spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0,
  'apt-get install golang-go',
);

describe.skipIf(!pythonUp)('the Python package (presence_guard)', () => {
  it('passes its unittest suite over every shared vector', () => {
    const run = spawnSync(python!, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: PYTHON_DIR,
      env: { ...process.env, PYTHONPATH: join(PYTHON_DIR, 'src'), PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Ran \d+ tests/);
  }, 120_000);
});

describe.skipIf(!pipUp)('the Python sdist the service serves, installed with pip', () => {
  let s: TestService;
  let origin: string;
  const dir = mkdtempSync(join(tmpdir(), 'presence-sdist-'));
  const lib = join(dir, 'lib');
  // The service answering pip's download runs in this process: the tools run asynchronously.
  const pip = (args: string[]) =>
    promisify(execFile)(
      pipPython!,
      ['-m', 'pip', ...args, '--no-deps', '--no-build-isolation', '--no-index'],
      {
        cwd: dir,
        env: {
          ...process.env,
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          PIP_NO_CACHE_DIR: '1',
          PYTHONDONTWRITEBYTECODE: '1',
        },
        timeout: 120_000,
      },
    );
  beforeAll(async () => {
    // What `npm run build` does: the sdist written in Node into packages/server/dist/sdk/.
    execFileSync(process.execPath, [join(PYTHON_DIR, 'scripts/pack-sdist.mjs')]);
    s = await startTestService('sqlite');
    origin = await s.composed.app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs offline into a fresh directory; its module and its presence-guard command hash an action', async () => {
    await pip(['install', '--target', lib, `${origin}/sdk/presence-guard.tar.gz`]);
    const action = { type: 'payout', amount: '250.00', currency: 'EUR' };
    writeFileSync(join(dir, 'action.json'), JSON.stringify(action));
    const env = { ...process.env, PYTHONPATH: lib, PYTHONDONTWRITEBYTECODE: '1' };
    const where = execFileSync(pipPython!, ['-c', 'import presence_guard; print(presence_guard.__file__)'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    expect(where.trim()).toBe(join(lib, 'presence_guard', '__init__.py'));
    for (const command of [[pipPython!, '-m', 'presence_guard'], [join(lib, 'bin', 'presence-guard')]]) {
      const hash = execFileSync(command[0]!, [...command.slice(1), 'action-hash', 'action.json'], {
        cwd: dir,
        env,
        encoding: 'utf8',
      });
      expect(hash.trim(), command.join(' ')).toBe(computeActionHashSync(action));
    }
  }, 120_000);

  it('builds a wheel that carries py.typed (PEP 561)', async () => {
    await pip(['wheel', '--wheel-dir', join(dir, 'wheel'), `${origin}/sdk/presence-guard.tar.gz`]);
    const [wheel] = readdirSync(join(dir, 'wheel'));
    expect(wheel).toMatch(/^presence_guard-[\d.]+-py3-none-any\.whl$/);
    const names = execFileSync(
      pipPython!,
      [
        '-c',
        'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))',
        join(dir, 'wheel', wheel!),
      ],
      { encoding: 'utf8' },
    ).split('\n');
    expect(names).toContain('presence_guard/py.typed');
    expect(names).toContain('presence_guard/__main__.py');
  }, 120_000);
});

describe.skipIf(!goUp)('the Go module (presence.dev/guard)', () => {
  it('is go vet clean and passes go test over every shared vector', () => {
    const vet = spawnSync('go', ['vet', './...'], { cwd: GO_DIR, env: GO_ENV, encoding: 'utf8' });
    expect(vet.status, vet.stderr).toBe(0);
    const test = spawnSync('go', ['test', '-count=1', '-v', './...'], {
      cwd: GO_DIR,
      env: GO_ENV,
      encoding: 'utf8',
    });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout.match(/--- PASS/g)?.length ?? 0).toBeGreaterThan(50);
  }, 300_000);
});

describeEachDialect('evidence from a running service, checked in every language', (dialect) => {
  const s = useTestService(dialect, {
    env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'presence-cross-'));
  const goBinary = join(dir, 'presence-guard');
  const action = {
    type: 'payout',
    amount: '99.95',
    currency: 'EUR',
    iban: 'DE02120300000000202051',
    payoutId: `po_${dialect}`,
  };
  const file = (name: string, value: unknown) => {
    writeFileSync(join(dir, name), JSON.stringify(value));
    return join(dir, name);
  };
  let keys: ServiceKey[] = [];
  let receipt: SignedEvidence;
  let approvalSet: IssuedApproval;
  let tampered: IssuedApproval;

  beforeAll(async () => {
    if (goUp)
      execFileSync('go', ['build', '-o', goBinary, './cmd/presence-guard'], { cwd: GO_DIR, env: GO_ENV });
    keys = (
      (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json as {
        keys: ServiceKey[];
      }
    ).keys;
    receipt = await receiptOf(s, 'alice', action);
    const ana = (await s.enroll('ana')).authenticator;
    await s.enroll('ben');
    const cai = (await s.enroll('cai')).authenticator;
    const request = { action, approvers: ['ana', 'ben', 'cai'], required: 2, initiator: 'ivan' };
    approvalSet = await issuedApproval(s, request, [ana, cai]);
    tampered = structuredClone(approvalSet);
    (tampered.approvalSet.approvalSet['action'] as typeof action).amount = '999.95';
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (command: string[], args: string[]) =>
    spawnSync(command[0]!, [...command.slice(1), ...args], {
      cwd: PYTHON_DIR,
      env: { ...process.env, PYTHONPATH: join(PYTHON_DIR, 'src') },
      encoding: 'utf8',
    });
  const commands = () => [
    ...(pythonUp ? [['python', [python!, '-m', 'presence_guard']] as const] : []),
    ...(goUp ? [['go', [goBinary]] as const] : []),
  ];

  it("the set is the service's own: 2 of 3, the initiator named, the two approvers listed", () => {
    expect(approvalSet.approvalSet.approvalSet).toMatchObject({
      version: 'presence.approval-set.v1',
      tenantId: s.tenantId,
      actionHashHex: computeActionHashSync(action),
      action,
      required: 2,
      approvers: ['ana', 'ben', 'cai'],
      initiator: 'ivan',
      approvals: [{ subject: 'ana' }, { subject: 'cai' }],
    });
    expect(approvalSet.receipts).toHaveLength(2);
  });

  it('the TypeScript SDK accepts both for this action only and refuses the tampered set', () => {
    const set = (evidence: IssuedApproval, a: unknown) =>
      verifyApprovalSet(evidence as ApprovalSetEvidence, { keys, action: a });
    expect(checkEvidence(receipt, { keys, action }).valid).toBe(true);
    expect(set(approvalSet, action)).toMatchObject({ valid: true });
    expect(set(approvalSet, { ...action, amount: '999.95' }).checks.action?.ok).toBe(false);
    const refused = set(tampered, action);
    expect(refused.valid).toBe(false);
    expect(refused.checks.actionHash?.ok).toBe(false);
    expect(refused.checks.serviceSignature?.ok).toBe(false);
  });

  it.skipIf(!pythonUp && !goUp)(
    'each command line prints every check and exits 0 only for valid evidence',
    () => {
      const keysFile = file('keys.json', { keys });
      const actionFile = file('action.json', action);
      const otherFile = file('other.json', { ...action, amount: '999.95' });
      const receiptFile = file('receipt.json', receipt);
      const setFile = file('set.json', approvalSet);
      const tamperedFile = file('tampered.json', tampered);
      for (const [name, command] of commands()) {
        const ok = cli(
          [...command],
          ['verify-receipt', receiptFile, '--keys', keysFile, '--action', actionFile],
        );
        expect(ok.status, `${name}: ${ok.stdout}${ok.stderr}`).toBe(0);
        expect(ok.stdout.split('\n').filter((l) => l.startsWith('ok   '))).toHaveLength(10);
        const set = cli(
          [...command],
          ['verify-approval-set', setFile, '--keys', keysFile, '--action', actionFile],
        );
        expect(set.status, `${name}: ${set.stdout}${set.stderr}`).toBe(0);
        expect(set.stdout).toContain('ok   initiatorExcluded:');
        const other = cli(
          [...command],
          ['verify-approval-set', setFile, '--keys', keysFile, '--action', otherFile],
        );
        expect(other.status, name).toBe(1);
        expect(other.stdout).toContain('FAIL action:');
        const forged = cli(
          [...command],
          ['verify-approval-set', tamperedFile, '--keys', keysFile, '--action', actionFile],
        );
        expect(forged.status, `${name}: ${forged.stdout}${forged.stderr}`).toBe(1);
        expect(forged.stdout).toContain('FAIL actionHash:');
        expect(forged.stdout).toContain('FAIL serviceSignature:');
        const hash = cli([...command], ['action-hash', actionFile]);
        expect(hash.stdout.trim(), name).toBe(computeActionHashSync(action));
      }
    },
    60_000,
  );
});
