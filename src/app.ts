import 'reflect-metadata';
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import compression from 'compression';
import express, { type Express } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { AttemptLimiter } from './platform/auth/attempt-limiter';
import { loadSigningKey } from './platform/auth/keys';
import { SecretBox } from './platform/auth/secret-box';
import { PasswordHasher, type PasswordHashCost } from './platform/auth/password';
import { DEFAULT_ISSUER, TokenService, tokenSubject } from './platform/auth/tokens';
import type { Config } from './config';
import {
  type AppDependencies,
  type Context,
  authenticateCaller,
  contextOf,
  createContext,
  createSchema,
  liveEvents,
} from './context';
import { guardDatabase } from './platform/postgres/database-guard';
import { type Database, openBackgroundOrm, openDatabase } from './platform/postgres/orm';
import {
  QueryCounter,
  requestTracking,
  withoutDeadline,
} from './platform/observability/request-tracking';
import { startChangeDelivery } from './platform/live/change-delivery';
import { ChangeLogStore } from './platform/live/change-log';
import { startLiveServer } from './platform/live/live-server';
import { SSE_PATH } from './platform/live/sse-handler';
import { graphqlArmor } from './platform/graphql/armor';
import { graphqlIdempotency } from './platform/graphql/idempotency-http';
import { apolloHandler } from './platform/graphql/apollo-http';
import { createApolloServer, GRAPHQL_PATH } from './platform/graphql/apollo';
import { formatError } from './platform/graphql/format-error';
import {
  graphiqlIde,
  IDE_ASSETS_PATH,
  OLD_GRAPHIQL_PATH,
  toGraphiqlAtEndpoint,
} from './platform/graphql/graphiql';
import { SDL_PATH, sdlDownload } from './platform/graphql/sdl-download';
import { loadTrustedDocuments } from './platform/graphql/trusted-documents';
import { trustedDocumentsGuard } from './platform/graphql/trusted-documents-http';
import { HEALTH_PATH, healthRoutes } from './platform/http/health.routes';
import { errorHandler, notFound } from './platform/http/http-errors';
import { IDEMPOTENCY_KEY_KEEP_MS, Idempotency } from './platform/http/idempotency';
import { oauthMetadataRoutes, WELL_KNOWN_PATH } from './platform/http/oauth-metadata.routes';
import { HOME_PATH, homePage } from './home';
import { corsPolicy, securityHeaders } from './platform/http/security';
import { createLogger } from './platform/observability/logger';
import { Metrics } from './platform/observability/metrics';
import { listenForMetrics } from './platform/observability/metrics-server';
import { scrub } from './platform/observability/log-safety';
import { IdempotencyKeys } from './platform/sql/idempotency-keys';
import { docsRouter } from '../rest/docs';
import { operationDocuments } from '../rest/operations';
import { REST_PREFIX, restRouter } from '../rest/router';
import { dataModel } from './data-model';
import { startWebhookWorker } from './modules/webhook/webhook.worker';
import { CALENDAR_PATH } from './modules/calendar/calendar.links';
import { calendarRoutes, FEED_BUILDS_AT_ONCE } from './modules/calendar/calendar.routes';
import { Turns } from './platform/shared/turns';

export interface CreateAppOptions {
  config: Config;
  logger?: Logger;
  /** Apply pending migrations at start (default true). */
  migrate?: boolean;
  /** Override argon2 cost (tests use a cheap one). */
  passwordCost?: PasswordHashCost;
}

/** A wired service instance: not listening until `listen` is called. */
export interface AppInstance {
  app: Express;
  httpServer: Server;
  database: Database;
  deps: AppDependencies;
  schema: GraphQLSchema;
  queries: QueryCounter;
  logger: Logger;
  /** Prometheus metrics, unless switched off. */
  metrics: Metrics | null;
  /** The port metrics are served on when METRICS_PORT gives them one of their own. */
  metricsPort(): number | null;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const JSON_LIMIT = '1mb';
/** How often the change log is pruned of changes past CHANGE_LOG_RETENTION. */
const CHANGE_LOG_PRUNE_EVERY_MS = 15 * 60_000;
/** Connections of the webhook worker's statements (its job queue has its own: see job-queue.ts). */
const WEBHOOK_POOL_SIZE = 2;
/** How often idempotency keys past their 24 hours are deleted. */
const IDEMPOTENCY_KEY_PRUNE_EVERY_MS = 15 * 60_000;

/** Builds the whole service (used by main and by the tests, so both run the same wiring). */
export async function createApp(options: CreateAppOptions): Promise<AppInstance> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const queries = new QueryCounter();
  const database = await openDatabase(config.database, {
    model: dataModel,
    migrate: options.migrate ?? true,
    counter: queries,
    requestTimeoutMs: config.requestTimeoutMs,
    log: (message) => logger.info({ component: 'orm' }, message),
    // Such as a pooled connection found broken: the database's state is logged once (guard).
    driverLog: (message) => logger.debug({ component: 'pg' }, scrub(message)),
  });
  const guard = guardDatabase(database.pool, config.requestTimeoutMs, logger);
  const key = await loadSigningKey(config.auth);
  // The same on every instance and port, so that instances sharing a key accept each other's tokens.
  const issuer = config.auth.issuer ?? config.publicUrl ?? DEFAULT_ISSUER;
  const tokens = new TokenService(key, {
    issuer,
    audience: config.auth.audience,
    accessTokenTtl: config.auth.accessTokenTtl,
    refreshTokenTtl: config.auth.refreshTokenTtl,
    refreshReuseInterval: config.auth.refreshReuseInterval,
    external: config.auth.external,
  });
  const deps: AppDependencies = {
    orm: database.orm,
    tokens,
    passwords: new PasswordHasher(options.passwordCost),
    attempts: AttemptLimiter.create(config.rateLimits, logger),
    maxParticipantsPerMeeting: config.maxParticipantsPerMeeting,
    publicUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    webhooks: {
      secrets: SecretBox.of({
        key: config.webhooks.secretKey,
        privateKeyPem: config.auth.privateKeyPem,
        secret: config.auth.secret,
      }),
      allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
      requireHttps: config.env === 'production',
    },
    feedBuilds: new Turns(FEED_BUILDS_AT_ONCE),
  };
  const schema = await createSchema({
    maxParticipantsPerMeeting: config.maxParticipantsPerMeeting,
  });
  // A key whose first request has run twice the request timeout (crashed, or its answer never
  // kept) is abandoned: the next retry takes it over.
  const idempotencyKeys = new IdempotencyKeys(database.orm.em.fork(), deps.webhooks.secrets, {
    keepMs: IDEMPOTENCY_KEY_KEEP_MS,
    abandonAfterMs: 2 * config.requestTimeoutMs,
  });
  const idempotency = new Idempotency(
    idempotencyKeys,
    (authorization) => tokenSubject(tokens, authorization),
    logger,
  );
  // Every instance prunes (idempotent, and cheap when there is nothing to do).
  const pruneKeys = setInterval(() => {
    idempotencyKeys.prune().catch(() => undefined);
  }, IDEMPOTENCY_KEY_PRUNE_EVERY_MS).unref();

  const app = express();
  const httpServer = createServer(app);
  let shuttingDown = false;
  httpServer.requestTimeout = config.requestTimeoutMs;
  httpServer.headersTimeout = Math.min(config.requestTimeoutMs, 60_000);
  // Idle keep-alive connections stay open longer than clients and proxies keep theirs (60 s is
  // the common load-balancer idle time; Node's default is 5 s): a server closing a socket at the
  // moment a client reuses it makes that request fail with no answer, seen under load.
  httpServer.keepAliveTimeout = 65_000;
  app.disable('x-powered-by');
  // API answers are never revalidated; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  const metrics = config.metrics.enabled ? new Metrics(() => database.pool.state()) : null;
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
  let metricsServer: Server | null = null;
  app.use(securityHeaders());
  app.use(corsPolicy(config.corsOrigins));
  const health = healthRoutes(
    database.orm,
    // Not ready either while the connection pool is stuck (every connection held, requests
    // running out of budget waiting).
    () => shuttingDown || guard.poolStuck(),
    () => database.embedded?.health() ?? 'up',
  );
  // Mounted at their own paths, so other requests do not walk their routes.
  app.use([HEALTH_PATH, `${REST_PREFIX}${HEALTH_PATH}`], health);
  app.use(WELL_KNOWN_PATH, oauthMetadataRoutes(key, issuer, config.publicUrl));
  app.get(HOME_PATH, homePage());
  // The IDE itself is Apollo's landing page at GRAPHQL_PATH; these come before Apollo's handler.
  const ide = graphiqlIde(GRAPHQL_PATH);
  app.use(IDE_ASSETS_PATH, ide.router);
  app.get(OLD_GRAPHIQL_PATH, toGraphiqlAtEndpoint(GRAPHQL_PATH));
  app.get(SDL_PATH, sdlDownload(schema));

  // The REST routes' own operations are trusted: one list for /graphql and its subscriptions.
  const trusted = loadTrustedDocuments({
    config: config.trustedDocuments,
    builtIn: operationDocuments().map((operation) => operation.document),
    logger,
  });
  const changes = await startChangeDelivery({
    url: database.sessionUrl,
    logger,
    metrics: metrics?.live ?? null,
    topicsOf: liveEvents.topicsOf,
    // Every instance prunes: the statement is idempotent, and cheap when there is nothing to do.
    prune: {
      everyMs: CHANGE_LOG_PRUNE_EVERY_MS,
      run: () =>
        new ChangeLogStore(database.orm.em.fork()).prune(
          new Date(Date.now() - config.changeLogRetentionMs),
        ),
    },
  });
  const hub = changes.hub;
  // Webhooks are delivered from the change log by jobs any instance runs (graphile-worker), on
  // connections of their own.
  const webhookOrm = await openBackgroundOrm(database, dataModel, {
    poolSize: WEBHOOK_POOL_SIZE,
    pooler: config.database.kind === 'postgres' ? config.database.pooler : undefined,
    requestTimeoutMs: config.requestTimeoutMs,
    driverLog: (message) => logger.debug({ component: 'pg' }, scrub(message)),
  });
  const webhooks = await startWebhookWorker<Context>({
    orm: webhookOrm,
    sessionUrl: database.sessionUrl,
    schema,
    contextOf: (user, over) => contextOf(deps, user, over),
    hub,
    secrets: deps.webhooks.secrets,
    policy: {
      allowPrivateNetworks: deps.webhooks.allowPrivateNetworks,
      requireHttps: deps.webhooks.requireHttps,
      retrySchedule: config.webhooks.retrySchedule,
      disableAfter: config.webhooks.disableAfter,
    },
    logger,
  });
  const live = startLiveServer({
    httpServer,
    path: GRAPHQL_PATH,
    schema,
    createContext: (request, liveScope) => createContext(deps, request, liveScope),
    authenticate: (authorization) => authenticateCaller(deps, authorization),
    hub,
    changes,
    limits: config.subscriptions,
    logger,
    metrics: metrics?.live ?? null,
    validationRules: graphqlArmor().validationRules,
    formatError: formatError(logger),
    trusted,
  });
  // Before the GraphQL path's own handler, which would take /graphql/stream for itself.
  // An event stream lasts as long as its client wants: its statements are bound by the
  // session's statement_timeout, not by a deadline of the request that opened it.
  app.use(SSE_PATH, withoutDeadline, live.sse);

  const apollo = createApolloServer({
    schema,
    httpServer,
    logger,
    introspection: config.introspection,
    ideHtml: ide.html,
    trusted,
  });
  await apollo.start();
  app.use(
    GRAPHQL_PATH,
    express.json({ limit: JSON_LIMIT }),
    // Off: not mounted at all, so requests pay nothing for the feature.
    ...(trusted ? [trustedDocumentsGuard(trusted, logger)] : []),
    graphqlIdempotency(idempotency, logger, trusted, GRAPHQL_PATH),
    apolloHandler(apollo, (req) =>
      createContext(deps, { authorization: req.headers.authorization, ip: req.ip ?? 'unknown' }),
    ),
  );
  app.use(
    CALENDAR_PATH,
    calendarRoutes({
      createContext: (request) => createContext(deps, request),
      logger,
      feedBuilds: deps.feedBuilds,
    }),
  );
  app.use(REST_PREFIX, docsRouter(schema));
  app.use(
    REST_PREFIX,
    restRouter({
      schema,
      createContext: (request) => createContext(deps, request),
      logger,
      idempotency,
    }),
  );
  app.use(notFound);
  app.use(errorHandler(logger));

  let closed = false;
  return {
    app,
    httpServer,
    database,
    deps,
    schema,
    queries,
    logger,
    metrics,
    metricsPort: () => (metricsServer?.address() as AddressInfo | null)?.port ?? null,
    async listen(port = config.port, host = config.host) {
      if (metricsHere && config.metrics.port !== null) {
        metricsServer = await listenForMetrics(metricsHere.handler(), config.metrics, host);
      }
      return new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => {
          const address = httpServer.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      shuttingDown = true;
      clearInterval(pruneKeys);
      // Subscribers are told the server is going away (1001) while the database is still there.
      await live.close();
      await changes.close();
      // Attempts under way finish (or are abandoned, to run again) before the database closes.
      await webhooks.close();
      await webhookOrm.close(true);
      // Stops accepting connections and waits for in-flight requests (drain plugin).
      await apollo.stop();
      if (httpServer.listening) {
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      }
      const metricsListener = metricsServer;
      if (metricsListener) {
        await new Promise<void>((resolve) => metricsListener.close(() => resolve()));
      }
      await deps.attempts.close();
      await database.close();
    },
  };
}
