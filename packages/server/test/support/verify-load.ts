/**
 * A steady verify load for the resilience tests: one loop of challenge → assertion → verify
 * against whatever base URL `target()` names at that moment, recording every response.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import type { SoftAuthenticator } from './soft-authenticator.js';

export interface Outcome {
  at: number;
  step: 'challenge' | 'verify';
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  decision?: string;
  receiptId?: string;
}

export interface VerifyLoad {
  outcomes: Outcome[];
  stop(): Promise<void>;
}

export function startVerifyLoad(
  target: () => string,
  apiKey: string,
  authenticator: SoftAuthenticator,
  subject: string,
  pauseMs = 20,
): VerifyLoad {
  const outcomes: Outcome[] = [];
  let running = true;
  const post = async (step: Outcome['step'], path: string, body: unknown) => {
    const at = Date.now();
    try {
      const res = await fetch(`${target()}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      const outcome: Outcome = {
        at,
        step,
        status: res.status,
        code: json.code,
        retryAfter: res.headers.get('retry-after'),
        decision: json.decision,
        receiptId: json.receiptId ?? undefined,
      };
      outcomes.push(outcome);
      return { outcome, json };
    } catch (error) {
      outcomes.push({ at, step, status: 0, code: String(error), retryAfter: null });
      return undefined;
    }
  };
  const loop = async () => {
    for (let n = 0; running; n++) {
      const challenge = await post('challenge', '/v1/presence/challenge', {
        actionHashHex: computeActionHash({ load: n, at: Date.now() }),
        subject,
      });
      if (challenge?.outcome.status === 201) {
        const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
        await post('verify', '/v1/presence/verify', { challengeId: challenge.json.challengeId, assertion });
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const done = loop();
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
    },
  };
}
