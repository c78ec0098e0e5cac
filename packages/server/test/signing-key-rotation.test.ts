/**
 * Rotation under load (issue 9 §1, ADR 0007): two real server processes on one database verify
 * presence continuously while `presence signing-keys rotate` runs in a third. Every receipt issued
 * must verify online (POST /v1/presence/receipts/verify) and offline (the SDK verifier with the
 * published keys.json), the new key must appear in keys.json on both processes before any receipt
 * uses it, and packs exported afterwards verify. Refresh, lead and overlap are shortened so the
 * whole run takes a few seconds per database.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { computeActionHashSync, verifyPack, verifyReceipt } from '@presence/sdk/node';
import { describe, expect, it } from 'vitest';
import type { ServerProcess } from './support/server-process.js';
import { processDialects, useServerProcesses } from './support/server-processes.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const REFRESH_MS = 500;
const LEAD_SECONDS = 2;
const OVERLAP_SECONDS = 2;
const WORKERS = 3;

/** `presence …` without blocking this process's event loop (the load keeps running meanwhile). */
function cliAsync(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`presence ${args.join(' ')}: ${err}`)),
    );
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const setup of await processDialects('signing-key rotation tests')) {
  describe.skipIf(!setup.enabled)(`signing-key rotation under load (${setup.name})`, () => {
    const group = useServerProcesses(setup.name, {
      name: 'rot',
      env: {
        PRESENCE_SIGNING_KEY_REFRESH_MS: String(REFRESH_MS),
        PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
      },
      processes: 2,
    });

    const call = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${group.apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
      });
      const type = res.headers.get('content-type') ?? '';
      const json = type.includes('json') ? ((await res.json()) as any) : null;
      return { status: res.status, json, res };
    };

    it('loses nothing: every receipt verifies online and offline, and keys.json shows each key first', async () => {
      const [a, b] = group.servers as [ServerProcess, ServerProcess];
      const authenticators: SoftAuthenticator[] = [];
      for (let w = 0; w < WORKERS; w++) {
        const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
        const options = await call(a, 'POST', '/v1/presence/credentials/options', { subject: `worker-${w}` });
        const enrolled = await call(b, 'POST', '/v1/presence/credentials', {
          registrationId: options.json.registrationId,
          credential: authenticator.register({ challenge: options.json.publicKey.challenge }),
        });
        expect(enrolled.status).toBe(201);
        authenticators.push(authenticator);
      }

      // keys.json on both processes, polled: when each kid was first shown by each process.
      const firstSeen = [new Map<string, number>(), new Map<string, number>()];
      let running = true;
      const watch = (async () => {
        while (running) {
          for (const [i, server] of [a, b].entries()) {
            const keys = (await (await fetch(`${server.url}/.well-known/presence/keys.json`)).json()) as any;
            const at = Date.now();
            for (const k of keys.keys) if (!firstSeen[i]!.has(k.kid)) firstSeen[i]!.set(k.kid, at);
          }
          await sleep(50);
        }
      })();
      await sleep(200);

      const issued: { receiptId: string; receiptHashHex: string }[] = [];
      const refused: string[] = [];
      const load = authenticators.map(async (authenticator, w) => {
        for (let round = 0; running; round++) {
          const [first, second] = (round + w) % 2 ? [a, b] : [b, a];
          const challenge = await call(first, 'POST', '/v1/presence/challenge', {
            actionHashHex: computeActionHashSync({ w, round }),
            subject: `worker-${w}`,
          });
          const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
          const verdict = await call(second, 'POST', '/v1/presence/verify', {
            challengeId: challenge.json.challengeId,
            assertion,
          });
          if (verdict.status === 503) {
            // A refusal must leave the challenge untouched, never a receipt signed with a doubtful key.
            expect(verdict.json.code).toBe('service_unavailable');
            const view = await call(first, 'GET', `/v1/presence/challenges/${challenge.json.challengeId}`);
            expect(view.json.status).toBe('pending');
            refused.push(challenge.json.challengeId);
            continue;
          }
          expect(verdict.status).toBe(200);
          expect(verdict.json.decision).toBe('PRESENCE_VERIFIED');
          issued.push({ receiptId: verdict.json.receiptId, receiptHashHex: verdict.json.receiptHashHex });
        }
      });

      await sleep(300);
      const rotation = JSON.parse(
        await cliAsync(
          [
            'signing-keys',
            'rotate',
            '--lead-seconds',
            `${LEAD_SECONDS}`,
            '--overlap-seconds',
            `${OVERLAP_SECONDS}`,
            '--json',
          ],
          group.env,
        ),
      );
      const oldEnds = Date.parse(rotation.ending[0].notAfter);
      while (Date.now() < oldEnds + 500) await sleep(50);
      running = false;
      await Promise.all([...load, watch]);

      const published = (await call(a, 'GET', '/.well-known/presence/keys.json')).json.keys;
      // The receipt-log key (use: "log") is listed too; receipts and packs use the others.
      const keys = published.filter((k: any) => k.use !== 'log');
      expect(keys.map((k: any) => [k.kid, k.status])).toEqual([
        [rotation.kid, 'active'],
        [rotation.ending[0].kid, 'retired'],
      ]);
      const byKid = new Map<string, number[]>();
      for (const { receiptId, receiptHashHex } of issued) {
        const signed = (await call(a, 'GET', `/v1/presence/receipts/${receiptId}`)).json;
        expect(signed.receiptHashHex).toBe(receiptHashHex);
        const offline = verifyReceipt(signed, { keys });
        expect(offline.valid, JSON.stringify(offline.checks)).toBe(true);
        const online = await call(b, 'POST', '/v1/presence/receipts/verify', signed);
        expect(online.json.valid, JSON.stringify(online.json.checks)).toBe(true);
        const list = byKid.get(signed.signature.kid) ?? [];
        list.push(Date.parse(signed.receipt.issuedAt));
        byKid.set(signed.signature.kid, list);
      }
      // Both keys signed under load, and the new one only after both processes published it.
      expect([...byKid.keys()].sort()).toEqual([rotation.ending[0].kid, rotation.kid].sort());
      for (const [kid, times] of byKid) {
        const firstUse = Math.min(...times);
        for (const seen of firstSeen) expect(seen.get(kid), kid).toBeLessThan(firstUse);
      }
      expect(Math.min(...byKid.get(rotation.kid)!)).toBeGreaterThanOrEqual(Date.parse(rotation.switchAt));
      expect(issued.length).toBeGreaterThan(20);
      expect(refused.length).toBeLessThan(issued.length / 10);

      // Packs made afterwards hold receipts of both keys and verify with the published keys.
      const from = new Date(Date.now() - 600_000).toISOString();
      const to = new Date(Date.now() + 1000).toISOString();
      for (const server of [a, b]) {
        const res = await fetch(`${server.url}/v1/presence/receipts/export?from=${from}&to=${to}`, {
          headers: { authorization: `Bearer ${group.apiKey}` },
        });
        expect(res.status).toBe(200);
        const report = await verifyPack(new Uint8Array(await res.arrayBuffer()), { keys: published });
        expect(report.valid, JSON.stringify(report.checks.filter((c) => !c.ok))).toBe(true);
        expect(report.receipts).toBe(issued.length);
      }
    }, 120_000);
  });
}
