/**
 * Runs examples/node-payout/payout.mjs as a separate `node` process against a real in-process
 * service over HTTP, as a reader would run it, and checks what it claims against the database.
 */
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from './support/test-service.js';

const example = fileURLToPath(new URL('../../../examples/node-payout/payout.mjs', import.meta.url));

describe('examples/node-payout', () => {
  const s = useTestService('sqlite');
  let url: string;
  beforeAll(async () => {
    url = await s.listen();
  });

  it('enrolls, approves and executes one payout, refuses the replay, and its receipt is the stored one', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [example], {
      env: { PATH: process.env['PATH'], PRESENCE_API_URL: url, PRESENCE_API_KEY: s.apiKey },
      timeout: 20_000,
    });
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      decision: 'PRESENCE_VERIFIED',
      replayDecision: 'CHALLENGE_ALREADY_USED',
      replayExecuted: false,
      receiptVerifiesOffline: true,
    });
    const receipt = (await s.testStore.rows('receipts')).find((r) => r.id === summary.receiptId);
    expect(receipt).toMatchObject({
      hash_hex: summary.receiptHashHex,
      action_hash_hex: summary.actionHashHex,
    });
    expect(receipt?.subject).toBe(summary.subject);
    // A credential reference is called a reference (cred_…), never an id.
    expect(summary.credentialRef).toMatch(/^cred_/);
    expect(summary).not.toHaveProperty('credentialId');
  });

  it('names in its README every scope the example needs', () => {
    const readme = readFileSync(new URL('../../../examples/node-payout/README.md', import.meta.url), 'utf8');
    for (const scope of [
      'policy:read',
      'credentials:write',
      'challenges:write',
      'presence:verify',
      'receipts:read',
    ])
      expect(readme).toContain(`\`${scope}\``);
    expect(readme).not.toMatch(/npm install @presence\/sdk/);
  });

  it('exits 2 with a hint when the URL or key is missing', async () => {
    const run = promisify(execFile)(process.execPath, [example], { env: { PATH: process.env['PATH'] } });
    await expect(run).rejects.toMatchObject({ code: 2 });
  });
});
