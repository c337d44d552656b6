import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import compression from 'compression';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { apolloHandler } from './platform/graphql/apollo-http';
import { createApolloServer, GRAPHQL_PATH } from './platform/graphql/apollo';
import { CostBudget } from './platform/graphql/cost-budget';
import { costGate } from './platform/graphql/cost-gate';
import { tokenSubject } from './platform/auth/tokens';
import {
  graphiqlIde,
  IDE_ASSETS_PATH,
  OLD_GRAPHIQL_PATH,
  toGraphiqlAtEndpoint,
} from './platform/graphql/graphiql';
import { graphqlIdempotency } from './platform/graphql/idempotency-http';
import { SDL_PATH, sdlDownload } from './platform/graphql/sdl-download';
import type { TrustedDocuments } from './platform/graphql/trusted-documents';
import { trustedDocumentsGuard } from './platform/graphql/trusted-documents-http';
import { HEALTH_PATH, healthRoutes } from './platform/http/health.routes';
import { readinessDetail } from './app-readiness';
import { oauthMetadataRoutes, WELL_KNOWN_PATH } from './platform/http/oauth-metadata.routes';
import { corsPolicy, securityHeaders } from './platform/http/security';
import { type TrustedProxies, trustedProxies } from './platform/http/trusted-proxies';
import { Metrics } from './platform/observability/metrics';
import { dueJobs } from './platform/jobs/queue-health';
import { requestTracking } from './platform/observability/request-tracking';
import { REST_PREFIX } from '../rest/router';
import type { AppCore } from './app-core';
import type { Config } from './app-config';
import { createContext } from './context';
import { HOME_PATH, homePage } from './home';

const JSON_LIMIT = '1mb';

/** The HTTP server and the middleware every request passes through. */
export interface HttpFrame {
  app: Express;
  httpServer: Server;
  metrics: Metrics | null;
  /** The metrics this process serves (in a cluster the primary serves every worker's). */
  metricsHere: Metrics | null;
  /** Set when the app begins to close: health answers not ready. */
  state: { shuttingDown: boolean };
  /** Whose `X-Forwarded-For` is believed (TRUST_PROXY): every face's client address. */
  proxies: TrustedProxies;
}

/** Creates the server and mounts what every request passes through. */
export function httpFrame(config: Config, logger: Logger, core: AppCore): HttpFrame {
  const app = express();
  const httpServer = createServer(app);
  httpServer.requestTimeout = config.requestTimeoutMs;
  httpServer.headersTimeout = Math.min(config.requestTimeoutMs, 60_000);
  // Idle keep-alive connections stay open longer than clients and proxies keep theirs (60 s is
  // the common load-balancer idle time; Node's default is 5 s): a server closing a socket at the
  // moment a client reuses it makes that request fail with no answer, seen under load.
  httpServer.keepAliveTimeout = 65_000;
  app.disable('x-powered-by');
  // API answers are never revalidated; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  const proxies = trustedProxies(config.trustProxy);
  app.set('trust proxy', proxies.trusts);
  const metrics = config.metrics.enabled ? new Metrics(() => core.database.pool.state()) : null;
  metrics?.jobQueue(() => dueJobs(core.database.pool));
  metrics?.statements(() => core.queries.total);
  if (metrics && core.answers) {
    metrics.answerCache(core.answers);
  }
  const { reads } = core.database;
  if (metrics && reads) {
    metrics.readReplicas(
      () => reads.counts,
      () => reads.replicas.states(),
    );
  }
  // A request read from a connection the shutdown drain has already ended (it held no request
  // when the drain began) can never be answered: it is not run, so nothing is done behind the
  // client's back (the SIGTERM fault test saw such a registration written, its client reset).
  app.use((req, _res, next) => {
    if (req.socket.writableEnded) {
      req.socket.destroy();
      return;
    }
    next();
  });
  app.use(requestTracking({ logger, metrics, requestTimeoutMs: config.requestTimeoutMs }));
  if (config.compression.enabled) {
    app.use(compression({ threshold: config.compression.thresholdBytes }));
  }
  // In a cluster the primary serves every worker's metrics, aggregated (src/cluster.ts).
  const metricsHere = metrics && !cluster.isWorker ? metrics : null;
  if (metricsHere && config.metrics.port === null) {
    app.get(config.metrics.path, metricsHere.handler());
  }
  app.use(securityHeaders());
  app.use(corsPolicy(config.corsOrigins));
  return { app, httpServer, metrics, metricsHere, state: { shuttingDown: false }, proxies };
}

/** Mounts health, OAuth metadata, the home page, the IDE's assets and the SDL download. */
export function mountEdges(frame: HttpFrame, config: Config, core: AppCore): string {
  const { app } = frame;
  const health = healthRoutes(
    core.database.orm,
    // Not ready either while the connection pool is stuck (every connection held, requests
    // running out of budget waiting).
    () => frame.state.shuttingDown || core.guard.poolStuck(),
    () => core.database.embedded?.health() ?? 'up',
    readinessDetail(core.database.pool, () => core.database.reads?.replicas.states() ?? []),
  );
  // Mounted at their own paths, so other requests do not walk their routes.
  app.use([HEALTH_PATH, `${REST_PREFIX}${HEALTH_PATH}`], health);
  app.use(WELL_KNOWN_PATH, oauthMetadataRoutes(core.key, core.issuer, config.publicUrl));
  app.get(HOME_PATH, homePage());
  // The IDE itself is Apollo's landing page at GRAPHQL_PATH; these come before Apollo's handler.
  const ide = graphiqlIde(GRAPHQL_PATH);
  app.use(IDE_ASSETS_PATH, ide.router);
  app.get(OLD_GRAPHIQL_PATH, toGraphiqlAtEndpoint(GRAPHQL_PATH));
  app.get(SDL_PATH, sdlDownload(core.schema));
  return ide.html;
}

/** Starts Apollo and mounts /graphql; answers Apollo's server, to stop. */
export async function mountGraphql(
  frame: HttpFrame,
  options: { config: Config; core: AppCore; logger: Logger; ideHtml: string },
  trusted: TrustedDocuments | null,
): Promise<{ stop(): Promise<void> }> {
  const { config, core, logger } = options;
  const budget =
    config.cost.budgetPerMinute === null
      ? null
      : CostBudget.create(config.cost.budgetPerMinute, core.limiterRedis);
  const apollo = createApolloServer({
    schema: core.schema,
    httpServer: frame.httpServer,
    logger,
    introspection: config.introspection,
    ideHtml: options.ideHtml,
    trusted,
    cost: {
      maxCost: config.cost.maxQueryCost,
      budget,
      metrics: frame.metrics?.queryCost() ?? null,
    },
    positionAfterWrite: core.database.reads?.positionAfterWrite.bind(core.database.reads),
    answers: core.answers,
  });
  await apollo.start();
  frame.app.use(
    GRAPHQL_PATH,
    // Before the body is read: a caller refused at once costs next to nothing.
    ...(budget
      ? [costGate(budget, (authorization) => tokenSubject(core.deps.tokens, authorization), logger)]
      : []),
    express.json({ limit: JSON_LIMIT }),
    // Off: not mounted at all, so requests pay nothing for the feature.
    ...(trusted ? [trustedDocumentsGuard(trusted, logger)] : []),
    graphqlIdempotency(core.idempotency, logger, trusted, GRAPHQL_PATH),
    apolloHandler(
      apollo,
      (req) =>
        createContext(core.deps, {
          authorization: req.headers.authorization,
          ip: req.ip ?? 'unknown',
        }),
      core.answers,
    ),
  );
  return apollo;
}
