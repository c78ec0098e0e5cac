import { loadConfig } from './config/load-config.js';
import { compose } from './compose.js';
import { createLogger } from './logger.js';
import { serveMetrics } from './observability/serve-metrics.js';
import { runJobs } from './worker/run-jobs.js';

/** load config → compose → listen; stop cleanly on SIGTERM/SIGINT. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const composed = await compose(config, logger);
  await composed.app.listen({ host: config.host, port: config.port });
  const metricsServer = config.metricsListen && (await serveMetrics(config.metricsListen, composed.metrics));
  const jobs = runJobs(composed.jobs, logger);
  logger.info(
    {
      database: composed.store.dialect,
      masterKey: config.masterKeySource,
      demo: config.devTenant ? '/demo' : 'off',
      metrics: metricsEndpoint(config),
      rateLimits: config.redisUrl === undefined ? 'in process' : 'shared through Redis',
      tracing: config.otlpEndpoint === undefined ? 'off' : 'OTLP/HTTP',
    },
    'presence is listening',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    jobs
      .stop()
      .then(() => composed.close())
      .then(
        () =>
          new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
      )
      .then(
        () => {
          logger.info({ signal }, 'stopped');
          logger.flush(() => process.exit(0));
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
