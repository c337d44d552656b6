import 'reflect-metadata';
// The modules first (through the context): type-graphql lists the schema's object types as their
// classes load, and the REST face's files below load some of them too.
import { contextOf, createContext } from './context';
import { loadTrustedDocuments } from './platform/graphql/trusted-documents';
import { errorHandler, notFound } from './platform/http/http-errors';
import { createLogger } from './platform/observability/logger';
import { openBackgroundOrm } from './platform/postgres/orm';
import { scrub } from './platform/observability/log-safety';
import { docsRouter } from '../rest/docs';
import { operationDocuments } from '../rest/operations';
import { REST_PREFIX, restRouter } from '../rest/router';
import { openCore } from './app-core';
import { httpFrame, mountEdges, mountGraphql } from './app-http';
import { instanceOf } from './app-instance';
import { serveLive, startChanges } from './app-live';
import { type AppRuntime, mountModuleRoutes, startModuleWorkers } from './app-modules';
import { dataModel } from './data-model';
import type { AppInstance, CreateAppOptions } from './app-options';

export type { AppInstance, CreateAppOptions };

/**
 * Builds the whole service (used by main and by the tests, so both run the same wiring): the
 * platform's routes, then what the modules declare (src/modules/index.ts), then REST.
 */
export async function createApp(options: CreateAppOptions): Promise<AppInstance> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const core = await openCore(options, logger);
  const { database, deps, schema } = core;
  const frame = httpFrame(config, logger, core);
  const ideHtml = mountEdges(frame, config, core);
  // The REST routes' own operations are trusted: one list for /graphql and its subscriptions.
  const trusted = loadTrustedDocuments({
    config: config.trustedDocuments,
    builtIn: operationDocuments().map((operation) => operation.document),
    logger,
  });
  const changes = await startChanges(config, core, frame, logger);
  const runtime: AppRuntime = {
    config,
    deps,
    logger,
    schema,
    sessionUrl: database.sessionUrl,
    hub: changes.hub,
    metrics: frame.metrics,
    createContext: (request) => createContext(deps, request),
    contextOf: (user, over) => contextOf(deps, user, over),
    backgroundOrm: (work, poolSize) =>
      openBackgroundOrm(database, dataModel, {
        work,
        poolSize,
        pooler: config.database.kind === 'postgres' ? config.database.pooler : undefined,
        requestTimeoutMs: config.requestTimeoutMs,
        driverLog: (message) => logger.debug({ component: 'pg' }, scrub(message)),
      }),
  };
  const workers = await startModuleWorkers(runtime);
  const live = serveLive({ config, core, frame, logger }, changes, trusted);
  const apollo = await mountGraphql(frame, { config, core, logger, ideHtml }, trusted);
  mountModuleRoutes(frame.app, runtime);
  frame.app.use(REST_PREFIX, docsRouter(schema));
  frame.app.use(
    REST_PREFIX,
    restRouter({
      schema,
      createContext: runtime.createContext,
      logger,
      idempotency: core.idempotency,
      positionAfterWrite: core.database.reads?.positionAfterWrite.bind(core.database.reads),
      answers: core.answers,
    }),
  );
  frame.app.use(notFound);
  frame.app.use(errorHandler(logger));
  return instanceOf({ config, core, schema, logger }, frame, { live, changes, workers, apollo });
}
