// Before anything else: the runtime check (a Node outside engines.node stops here) and the
// compile cache.
import './runtime-start';
// Then tracing (when configured) must patch modules before anything else loads them.
import { stopTracing } from './tracing-preload';
import cluster from 'node:cluster';
import { type AppInstance, createApp } from './app';
import { exitOnHelp, exitOnStartFailure, usage } from './command-line';
import { assertPortFree } from './platform/http/port-check';
import { loadConfig } from './app-config';
import { ConfigError } from './config';
import {
  EMBEDDED_FAILED_EXIT_CODE,
  reportEmbeddedHealth,
} from './platform/postgres/embedded/health-report';
import { createLogger } from './platform/observability/logger';
import { routeConsoleToLog } from './platform/observability/console-to-log';
import { startedAt } from './home';
import { releaseStartUpMemory } from './runtime-memory';

/** How long liveness answers 503 before the process exits when the embedded database is lost. */
const EMBEDDED_FAILED_EXIT_DELAY_MS = 1_000;

const USAGE = usage(
  'npm start [-- --help]   (or: node dist/src/main.js)',
  'Starts the service: the database (DATABASE_URL, or the embedded one in DATA_DIR) migrated,\n' +
    'then GraphQL, REST and the browser pages on HOST:PORT. SIGTERM or SIGINT stops it gracefully.',
);

/** Starts the service and shuts it down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  exitOnHelp(process.argv.slice(2), USAGE);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config);
  routeConsoleToLog(logger);
  let instance: AppInstance;
  let url: string;
  try {
    // First the port (a cluster worker shares its primary's, checked there): its failure is found
    // in a moment, before the database is started and migrated.
    if (cluster.isPrimary) {
      await assertPortFree(config.port, config.host);
    }
    instance = await createApp({ config, logger, migrate: config.migrateOnStart });
    // Before listening, so that no request waits for it.
    releaseStartUpMemory();
    url = await instance.listen();
  } catch (error) {
    exitOnStartFailure(logger, error);
  }
  logger.info(
    {
      // Addresses a browser can open (localhost for 0.0.0.0), and where it listens.
      ...startedAt(url),
      database: instance.database.kind,
      env: config.env,
    },
    'service started',
  );

  const embedded = instance.database.embedded;
  if (embedded) {
    reportEmbeddedHealth(embedded, logger, () => {
      // Liveness answers 503 from now on; a moment for a probe to see it, then out.
      setTimeout(() => process.exit(EMBEDDED_FAILED_EXIT_CODE), EMBEDDED_FAILED_EXIT_DELAY_MS);
    });
  }

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    instance
      .close()
      .then(stopTracing)
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error('failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
