import { loadConfig } from './config/load-config.js';
import { compose } from './compose.js';
import { createLogger } from './logger.js';
import { runJobs } from './worker/run-jobs.js';

/** load config → compose → listen; drain and stop cleanly on SIGTERM/SIGINT. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const composed = await compose(config, logger);
  await composed.app.listen({ host: config.host, port: config.port });
  const jobs = runJobs(composed.jobs, logger);
  logger.info(
    {
      database: composed.store.dialect,
      masterKey: config.masterKeySource,
      previousMasterKey: config.previousMasterKey !== undefined,
      demo: config.devTenant ? '/demo' : 'off',
    },
    'presence is listening',
  );
  let stopping = false;
  /**
   * Shutdown: /readyz turns 503 at once; after `delayMs` (for load balancers to notice) the
   * listener closes, and requests in flight, the job batches running and webhook attempts in
   * flight get `drainMs` to finish; then the pool closes and a last line is logged.
   */
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const { delayMs, drainMs } = config.shutdown;
    logger.info({ signal, delayMs, drainMs }, 'draining: readiness is now 503');
    composed.startDraining();
    const deadline = setTimeout(() => {
      logger.error({ signal, ms: Date.now() - started }, 'drain time exceeded; stopped with work unfinished');
      process.exit(1);
    }, delayMs + drainMs);
    new Promise((resolve) => setTimeout(resolve, delayMs))
      .then(() => Promise.all([jobs.stop(), composed.app.close()]))
      .then(() => composed.close())
      .then(
        () => {
          clearTimeout(deadline);
          logger.info({ signal, ms: Date.now() - started }, 'stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'unclean stop');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
