import './runtime-start';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { exitOnHelp, exitOnStartFailure, usage } from './command-line';
import { type Config, loadConfig } from './app-config';
import { ConfigError, type DatabaseConfig } from './config';
import type { EmbeddedServer } from './platform/postgres/embedded/embedded-server';
import {
  EMBEDDED_FAILED_EXIT_CODE,
  reportEmbeddedHealth,
} from './platform/postgres/embedded/health-report';
import { databaseServer, openDatabase, sessionTarget } from './platform/postgres/orm';
import { assertPortFree } from './platform/http/port-check';
import { createLogger } from './platform/observability/logger';
import { clusterMetricsHandler } from './platform/observability/cluster-metrics';
import { CLUSTER_METRICS_PORT } from './platform/observability/observability.settings';
import { listenForMetrics } from './platform/observability/metrics-server';
import { dataModel } from './data-model';

/**
 * The port first (found busy in a moment), then the database, migrated once for every worker. On
 * the embedded database, this process runs the server for as long as the workers run.
 */
async function startDatabase(
  config: Config,
  log: (message: string) => void,
): Promise<{ url: string; server: EmbeddedServer | null }> {
  await assertPortFree(config.port, config.host);
  const started = await databaseServer(config.database, { log });
  if (config.migrateOnStart) {
    // Behind a pooler, straight to DATABASE_DIRECT_URL.
    const target: DatabaseConfig =
      config.database.kind === 'postgres'
        ? sessionTarget(config.database)
        : { kind: 'postgres', url: started.url, poolSize: 1 };
    const database = await openDatabase(
      { ...target, poolSize: 1 },
      { model: dataModel, migrate: true, log },
    );
    await database.close();
  }
  return started;
}

/**
 * Production start mode using every core: the primary applies migrations once, then forks one
 * worker per core (or CLUSTER_WORKERS), each running the service on the shared port. Without
 * DATABASE_URL the primary runs the embedded database's server and the workers connect to it.
 */
async function primary(): Promise<void> {
  exitOnHelp(
    process.argv.slice(2),
    usage(
      'npm run start:cluster [-- --help]   (or: node dist/src/cluster.js)',
      'Starts one worker per core (CLUSTER_WORKERS) serving the service on the shared HOST:PORT;\n' +
        'the primary migrates the database once and, without DATABASE_URL, runs the embedded one.',
    ),
  );
  const config = loadConfig();
  const logger = createLogger(config);
  const workers = config.clusterWorkers || availableParallelism();
  const log = (message: string) => logger.info({ component: 'orm' }, message);
  const { url: databaseUrl, server: embedded } = await startDatabase(config, log).catch(
    (error: unknown) => exitOnStartFailure(logger, error),
  );
  let stopping = false;
  let exitCode = 0;
  // Bounds the workers' stop; once they are all gone it is the embedded server's stop that
  // remains, which bounds its own (a slow one under load is not workers that did not stop).
  let workersDeadline: NodeJS.Timeout | undefined;
  const exit = (code: number) => {
    void (embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  cluster.setupPrimary({ exec: __filename.replace(/cluster\.js$/, 'main.js') });
  const fork = () => cluster.fork({ MIGRATE_ON_START: 'false', DATABASE_URL: databaseUrl });
  for (let i = 0; i < workers; i += 1) {
    fork();
  }
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        clearTimeout(workersDeadline);
        logger.info('all workers stopped');
        exit(exitCode);
      }
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping workers');
    for (const worker of Object.values(cluster.workers ?? {})) {
      worker?.process.kill('SIGTERM');
    }
    workersDeadline = setTimeout(() => {
      const left = Object.values(cluster.workers ?? {}).map((worker) => worker?.process.pid);
      logger.error({ workers: left }, 'workers did not stop in time; exiting');
      exit(1);
    }, config.shutdownTimeoutMs + 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (embedded) {
    // The workers cannot serve without the database: they stop, then the primary exits non-zero.
    reportEmbeddedHealth(embedded, logger, () => {
      exitCode = EMBEDDED_FAILED_EXIT_CODE;
      stop('SIGTERM');
    });
  }
  if (config.metrics.enabled) {
    // Workers do not serve their own numbers: here they are asked for them and summed.
    const port = config.metrics.port ?? CLUSTER_METRICS_PORT;
    await listenForMetrics(clusterMetricsHandler(), { ...config.metrics, port }, config.host);
    logger.info({ port, path: config.metrics.path }, "serving the workers' metrics");
  }
  logger.info({ workers }, 'cluster started');
}

primary().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
