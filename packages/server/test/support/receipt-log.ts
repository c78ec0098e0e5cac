/** Receipt-log helpers for tests: run the integration job now, read the log key from keys.json. */
import { createReceiptLogJob } from '../../src/worker/receipt-log-job.js';
import type { TestService } from './test-service.js';

/**
 * Runs the receipt-log job until it reports no more work (what the worker does every interval),
 * for every grown log however recent its last checkpoint: tests integrate on demand, often right
 * after the previous checkpoint. The spacing of checkpoints has its own test
 * (receipt-log-cadence.test.ts).
 */
export async function integrateNow(s: TestService): Promise<void> {
  if (!s.composed.jobs.some((j) => j.name === 'receipt-log')) throw new Error('no receipt-log job');
  const job = createReceiptLogJob(s.composed.deps, { intervalMs: 500, minCheckpointAgeMs: 0 });
  while (await job.run()) {
    // keep going while a backlog remains
  }
}

/** The raw 32-byte log public keys of keys.json (`use: "log"`). */
export async function logKeys(s: TestService): Promise<Buffer[]> {
  const keys = (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json.keys as any[];
  return keys.filter((k) => k.use === 'log').map((k) => Buffer.from(k.publicKeyB64Url, 'base64url'));
}

export async function fetchCheckpoint(
  s: TestService,
  key = s.apiKey,
): Promise<{ status: number; text: string; type: string }> {
  const res = await s.composed.app.inject({
    method: 'GET',
    url: '/v1/presence/log/checkpoint',
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, text: res.body, type: String(res.headers['content-type']) };
}
