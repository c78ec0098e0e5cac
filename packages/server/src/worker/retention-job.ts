import type { Logger } from 'pino';
import type { Deps } from '../domain/deps.js';
import { pruneExpiredRows } from '../domain/retention/prune-expired-rows.js';
import type { RetentionSettings } from '../domain/retention/retention-settings.js';
import type { Job } from './run-jobs.js';

/**
 * Prunes finished rows past their retention (see storage/repos/retention.ts for the tables), one
 * small batch per table per run, every ten minutes, and back to back while batches come back full.
 */
export function createRetentionJob(
  deps: Pick<Deps, 'store' | 'clock'>,
  settings: RetentionSettings,
  logger: Logger | false,
): Job {
  return {
    name: 'retention',
    intervalMs: 10 * 60_000,
    async run() {
      const { deleted, more } = await pruneExpiredRows(deps, settings);
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0 && logger) logger.debug({ deleted }, 'retention pruned rows');
      return more;
    },
  };
}
