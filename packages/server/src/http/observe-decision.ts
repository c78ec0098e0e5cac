import type { VerifyResult } from '@presence/contract';
import type { FastifyRequest } from 'fastify';
import type { Metrics } from '../observability/create-metrics.js';

/** The one log line and the metrics of a verify decision; the tenant id is on every line. */
export function observeDecision(
  metrics: Pick<Metrics, 'decisions' | 'verifyDuration'>,
  request: FastifyRequest,
  tenantId: string,
  result: VerifyResult,
  startedMs: number,
): void {
  const verified = result.decision === 'PRESENCE_VERIFIED';
  metrics.decisions.inc({ decision: result.decision });
  metrics.verifyDuration.observe(
    { result: verified ? 'verified' : 'denied' },
    (performance.now() - startedMs) / 1000,
  );
  request.log.info(
    { tenantId, challengeId: result.challengeId, decision: result.decision, receiptId: result.receiptId },
    'presence decision',
  );
}
