import { loadConfig } from './config/load-config.js';
import { trustProxyWarning } from './config/read-trust-proxy.js';
import { compose } from './compose.js';
import { chooseLogFormat, createLogger } from './logger.js';
import { serveMetrics } from './observability/serve-metrics.js';
import { runJobs } from './worker/run-jobs.js';
import { renderStartBanner } from './start-banner.js';

/** load config → compose → listen; drain and stop cleanly on SIGTERM/SIGINT. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const format = chooseLogFormat(config.logFormat, config.production, process.stdout.isTTY === true);
  const logger = createLogger(config.logLevel, undefined, format);
  const proxyWarning = trustProxyWarning(config.trustProxy);
  if (proxyWarning !== undefined) logger.warn(proxyWarning);
  const composed = await compose(config, logger);
  await composed.app.listen({ host: config.host, port: config.port });
  const metricsServer = config.metricsListen && (await serveMetrics(config.metricsListen, composed.metrics));
  const jobs = runJobs(composed.jobs, logger);
  logger.info(
    {
      database: composed.store.dialect,
      masterKey: config.masterKeySource,
      previousMasterKey: config.previousMasterKey !== undefined,
      demo: config.devTenant ? '/demo' : 'off',
      metrics: metricsEndpoint(config),
      rateLimits: config.redisUrl === undefined ? 'in process' : 'shared through Redis',
      tracing: config.otlpEndpoint === undefined ? 'off' : 'OTLP/HTTP',
    },
    'presence is listening',
  );
  if (composed.development !== undefined) {
    // Outside the log stream on purpose: it may hold the new tenant's API key, shown once.
    process.stdout.write(
      renderStartBanner({
        origin: config.devOrigin,
        consoleOrigin: config.consoleOrigin,
        development: composed.development,
      }),
    );
  }
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
      logger.flush(() => process.exit(1));
    }, delayMs + drainMs);
    new Promise((resolve) => setTimeout(resolve, delayMs))
      .then(() => Promise.all([jobs.stop(), composed.app.close()]))
      .then(() => composed.close())
      .then(
        () =>
          new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
      )
      .then(
        () => {
          clearTimeout(deadline);
          logger.info({ signal, ms: Date.now() - started }, 'stopped');
          logger.flush(() => process.exit(0));
        },
        (error: unknown) => {
          logger.error({ err: error }, 'unclean stop');
          logger.flush(() => process.exit(1));
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

function metricsEndpoint(config: ReturnType<typeof loadConfig>): string {
  if (config.metricsListen) return `http://${config.metricsListen.host}:${config.metricsListen.port}/metrics`;
  return config.metricsToken === undefined ? 'off' : '/metrics (bearer token)';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
