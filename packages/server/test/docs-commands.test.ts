/**
 * Commands and examples the docs give an auditor or a webhook receiver do what the text says: the
 * `openssl dgst` line in docs/webhooks.md prints exactly the hex after `v1=` (no prefix to cut by
 * hand), and docs/evidence.md's manifest example names every file a pack has.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PACK_DATA_FILES, PACK_LOG_FILES } from '@presence/contract';
import { expect, it } from 'vitest';
import { webhookHeaders } from '../src/domain/webhooks/sign-webhook.js';

const docs = (name: string) => readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');

it('the openssl line of docs/webhooks.md prints the X-PRESENCE-Signature digest and nothing else', () => {
  const line = /`(printf '%s\.%s\.%s'[^`]*openssl dgst[^`]*)`/.exec(docs('webhooks.md'))?.[1];
  expect(line).toBeDefined();
  const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'receipt.created',
    createdAt: '2026-01-01T00:00:00Z',
    data: {},
  });
  const timestamp = 1_790_000_000;
  const headers = webhookHeaders({
    secrets: [secret],
    timestamp,
    deliveryId: 'dlv_1',
    eventType: 'receipt.created',
    body,
  }) as Record<string, string>;
  const signature = Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-presence-signature')![1];
  const printed = execFileSync('bash', ['-c', line!], {
    env: {
      PATH: process.env['PATH'],
      TS: String(timestamp),
      DELIVERY_ID: 'dlv_1',
      BODY: body,
      SECRET: secret,
    },
    encoding: 'utf8',
  }).trim();
  expect(printed).toMatch(/^[0-9a-f]{64}$/);
  expect(signature.split(/[ ,]/)).toContain(`v1=${printed}`);
});

it("docs/evidence.md's manifest example lists every file of a pack", () => {
  const text = docs('evidence.md');
  const example = text.slice(text.indexOf('### `manifest.json`'), text.indexOf('### `manifest.sig.json`'));
  const files = example.slice(example.indexOf('"files"'), example.indexOf('"filters"'));
  for (const name of [...PACK_DATA_FILES, ...PACK_LOG_FILES]) expect(files, name).toContain(name);
  expect(text).toMatch(/log key \(`"use": "log"`\) is left out of\s+`trust.snapshot.json`/);
});
