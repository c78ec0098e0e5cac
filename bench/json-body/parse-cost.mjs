#!/usr/bin/env node
/* global Buffer, process, console, TextDecoder */
/**
 * The cost of the strict JSON body parser on a typical verify body (issue 34 §3): before (UTF-8
 * decode + secure-json-parse, what `parseJsonBody` did until duplicate members were refused) and
 * after (the same plus the duplicate-member check), and the check alone with @humanwhocodes/momoa
 * on every body, for comparison. Needs `npm run build`. Prints ns per parse (median of rounds).
 *   node bench/json-body/parse-cost.mjs [--iterations 200000] [--rounds 7]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parse as momoaParse } from '@humanwhocodes/momoa';
import secureJsonParse from 'secure-json-parse';
import { findDuplicateMember } from '../../packages/server/dist/http/plugins/duplicate-members.js';
import { parseJsonBody } from '../../packages/server/dist/http/plugins/json-body.js';

const { values } = parseArgs({
  options: { iterations: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '7' } },
});
const iterations = Number(values.iterations);
const rounds = Number(values.rounds);

const b64 = (n) => randomBytes(n).toString('base64url');
const clientData = Buffer.from(
  JSON.stringify({
    type: 'webauthn.get',
    challenge: b64(32),
    origin: 'https://app.example',
    crossOrigin: false,
  }),
).toString('base64url');
const credentialId = b64(32);
const body = Buffer.from(
  JSON.stringify({
    challengeId: `chl_${'0'.repeat(26)}`,
    assertion: {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientData,
        authenticatorData: b64(37),
        signature: b64(71),
        userHandle: b64(16),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    },
  }),
);
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const options = { protoAction: 'error', constructorAction: 'error' };

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const text = UTF8.decode(body);
const value = JSON.parse(text);

/** parseJsonBody as it was before the duplicate-member check (same charset, BOM and UTF-8 steps). */
function previousParseJsonBody(contentType, bytes) {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw new Error('charset');
  if (bytes.length === 0 || bytes.subarray(0, 3).equals(BOM)) throw new Error('empty or BOM');
  return secureJsonParse.parse(UTF8.decode(bytes), undefined, options);
}

const candidates = {
  before: () => previousParseJsonBody('application/json', body),
  after: () => parseJsonBody('application/json', body),
  'the check alone': () => findDuplicateMember(text, value),
  'momoa on every body': () => {
    const text = UTF8.decode(body);
    momoaParse(text, { mode: 'json' });
    return secureJsonParse.parse(text, undefined, options);
  },
};

function measure(fn) {
  const start = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < iterations; i++) sink += fn() === null ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - start) / iterations;
  return sink === -1 ? 0 : ns;
}

for (const fn of Object.values(candidates)) measure(fn); // warm up
const results = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(candidates)) results[name].push(measure(fn));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `verify body: ${body.length} bytes; ${iterations} parses × ${rounds} rounds; Node ${process.version}`,
);
const base = median(results.before);
for (const [name, xs] of Object.entries(results)) {
  const m = median(xs);
  console.log(
    `${name.padEnd(22)} ${m.toFixed(0).padStart(6)} ns/parse  (${((m / base - 1) * 100).toFixed(1)} % vs before)`,
  );
}
