import type { FastifyReply } from 'fastify';
import type { Metrics } from '../observability/create-metrics.js';

export type ExportOutcome = 'completed' | 'aborted' | 'failed';

/**
 * Measures one export response: the bytes its socket wrote while the pack streamed (a response
 * owns its connection while it streams, so the difference is this pack plus its headers), then
 * one log line and the export metrics when it ends.
 */
export function observeExport(
  metrics: Pick<Metrics, 'exportBytes' | 'exports'>,
  reply: FastifyReply,
  context: { tenantId: string; exportId: string },
): (outcome: ExportOutcome) => void {
  const socket = reply.raw.socket;
  const before = socket?.bytesWritten ?? 0;
  const started = performance.now();
  let ended = false;
  return (outcome) => {
    if (ended) return;
    ended = true;
    const bytes = Math.max(0, (socket?.bytesWritten ?? before) - before);
    metrics.exportBytes.inc(bytes);
    metrics.exports.inc({ outcome });
    const durationMs = Math.round(performance.now() - started);
    reply.log.info({ ...context, outcome, bytes, durationMs }, 'export ended');
  };
}
