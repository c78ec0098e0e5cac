// Run: npm run bench:guards (= npm run build && node bench/guards/run.mjs) [-- --seconds 5]
// Method and the latest figures: docs/performance.md ("Executor guards").
//
// Receipt verifications per CPU-second (= per core) of each language's guard on the same receipt
// (conformance/cross-language/receipt.json, an ES256 credential), beside that language's raw
// ceiling measured in the same run: one Ed25519 verify (the service signature) plus one ECDSA P-256
// verify (the authenticator's), the two signature checks every receipt needs. The guard's check is
// the full offline verification with the executor's action (schema, canonical hash, both
// signatures, challenge binding, client data, flags); the in-memory seen-store claim is not
// included. Each language runs single-threaded; CPU time, not wall time, is the denominator, so the
// figures hold on a shared machine. Python needs `cryptography`, Go needs `go`; a missing one is
// reported and skipped.
/* global URL, process, console, Buffer */
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalJson, checkEvidence, importCoseKey } from '@presence/sdk/node';

const root = fileURLToPath(new URL('../../', import.meta.url));
const vectors = `${root}conformance/cross-language/`;
const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 5;
const load = (name) => JSON.parse(readFileSync(`${vectors}${name}`, 'utf8'));
const signed = load('receipt.json');
const keys = load('keys.json').keys;
const action = load('action.json');

function perCpuSecond(fn) {
  fn();
  const start = process.cpuUsage();
  let count = 0;
  for (;;) {
    for (let i = 0; i < 20; i += 1) fn();
    count += 20;
    const used = process.cpuUsage(start);
    const cpu = (used.user + used.system) / 1e6;
    if (cpu >= seconds) return count / cpu;
  }
}

function node() {
  if (!checkEvidence(signed, { keys, action }).valid) throw new Error('the receipt does not verify');
  const r = signed.receipt;
  const message = Buffer.from(canonicalJson(r), 'utf8');
  const key = keys.find((k) => k.kid === signed.signature.kid);
  const serviceKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKeyB64Url },
    format: 'jwk',
  });
  const serviceSig = Buffer.from(signed.signature.signatureB64Url, 'base64url');
  const credential = importCoseKey(Buffer.from(r.credentialPublicKeyB64Url, 'base64url'));
  const clientHash = createHash('sha256').update(Buffer.from(r.clientDataJSONB64Url, 'base64url')).digest();
  const data = Buffer.concat([Buffer.from(r.authenticatorDataB64Url, 'base64url'), clientHash]);
  const ecSig = Buffer.from(r.signatureB64Url, 'base64url');
  const raw = () =>
    verify(null, message, serviceKey, serviceSig) && verify('sha256', data, credential.key.keyObject, ecSig);
  if (!raw()) throw new Error('the raw verifications fail');
  return {
    language: `node ${process.version}`,
    guard: perCpuSecond(() => checkEvidence(signed, { keys, action })),
    ceiling: perCpuSecond(raw),
  };
}

function python() {
  const candidates = [process.env.PRESENCE_PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean);
  const py = candidates.find(
    (p) => spawnSync(p, ['-c', 'import cryptography'], { stdio: 'ignore' }).status === 0,
  );
  if (!py) return { language: 'python', skipped: 'no python3 with cryptography' };
  const run = spawnSync(py, [`${root}bench/guards/bench.py`, vectors, String(seconds)], {
    env: { ...process.env, PYTHONPATH: `${root}packages/python/src` },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stderr);
  const version = spawnSync(
    py,
    ['-c', 'import sys, cryptography; print(sys.version.split()[0], cryptography.__version__)'],
    { encoding: 'utf8' },
  ).stdout.trim();
  return { ...JSON.parse(run.stdout), language: `python ${version.replace(' ', ', cryptography ')}` };
}

function go() {
  const env = { ...process.env, GOPROXY: 'off', GOFLAGS: '-buildvcs=false', GOMAXPROCS: '1' };
  const version = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (version.status !== 0) return { language: 'go', skipped: 'no go' };
  const run = spawnSync('go', ['test', '-run', '^$', '-bench', '.', '-benchtime', `${seconds}s`], {
    cwd: `${root}packages/go`,
    env,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stdout + run.stderr);
  const rate = (name) =>
    Number(
      new RegExp(`${name}\\S*\\s+\\d+\\s+\\d+ ns/op\\s+(\\d+) verifications/cpu-s`).exec(run.stdout)?.[1],
    );
  return {
    language: version.stdout.split(' ')[2],
    guard: rate('BenchmarkGuardVerifyReceipt'),
    ceiling: rate('BenchmarkRawEd25519AndECDSA'),
  };
}

console.log(`receipt verifications per CPU-second (one core), ${seconds} s of CPU per figure`);
console.log('language                                guard   raw Ed25519+ECDSA ceiling   guard/ceiling');
for (const measure of [node, python, go]) {
  const r = measure();
  if (r.skipped) {
    console.log(`${r.language.padEnd(34)} skipped: ${r.skipped}`);
    continue;
  }
  const pct = `${Math.round((100 * r.guard) / r.ceiling)} %`;
  console.log(
    `${r.language.padEnd(34)} ${Math.round(r.guard).toString().padStart(10)} ${Math.round(r.ceiling).toString().padStart(27)} ${pct.padStart(15)}`,
  );
}
