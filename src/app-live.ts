import type { Logger } from 'pino';
import { graphqlArmor } from './platform/graphql/armor';
import { GRAPHQL_PATH } from './platform/graphql/apollo';
import { formatError } from './platform/graphql/format-error';
import type { TrustedDocuments } from './platform/graphql/trusted-documents';
import { type ChangeDelivery, startChangeDelivery } from './platform/live/change-delivery';
import { ChangeLogStore } from './platform/live/change-log';
import { startLiveServer } from './platform/live/live-server';
import { SSE_PATH } from './platform/live/sse-handler';
import { withoutDeadline } from './platform/observability/request-tracking';
import type { AppCore } from './app-core';
import type { HttpFrame } from './app-http';
import type { Config } from './app-config';
import { authenticateCaller, createContext, liveEvents, type Notice } from './context';

/** How often the change log is pruned of changes past CHANGE_LOG_RETENTION. */
const CHANGE_LOG_PRUNE_EVERY_MS = 15 * 60_000;

/** Starts delivering committed changes to this instance's subscribers. */
export function startChanges(
  config: Config,
  core: AppCore,
  frame: HttpFrame,
  logger: Logger,
): Promise<ChangeDelivery<Notice>> {
  const { database } = core;
  return startChangeDelivery({
    url: database.sessionUrl,
    logger,
    metrics: frame.metrics?.live ?? null,
    noticeOf: liveEvents.noticeOf,
    topicsOf: liveEvents.topicsOf,
    tables: core.answers ?? undefined,
    // Every instance prunes: the statement is idempotent, and cheap when there is nothing to do.
    prune: {
      everyMs: CHANGE_LOG_PRUNE_EVERY_MS,
      run: () =>
        new ChangeLogStore(database.orm.em.fork()).prune(
          new Date(Date.now() - config.changeLogRetentionMs),
        ),
    },
  });
}

/** Serves subscriptions over WebSocket at /graphql and as an event stream (SSE). */
export function serveLive(
  options: { config: Config; core: AppCore; frame: HttpFrame; logger: Logger },
  changes: ChangeDelivery<Notice>,
  trusted: TrustedDocuments | null,
): { close(): Promise<void> } {
  const { config, core, frame, logger } = options;
  const live = startLiveServer({
    httpServer: frame.httpServer,
    clientAddress: frame.proxies.clientAddress,
    path: GRAPHQL_PATH,
    schema: core.schema,
    createContext: (request, liveScope) => createContext(core.deps, request, liveScope),
    authenticate: (authorization) => authenticateCaller(core.deps, authorization),
    hub: changes.hub,
    changes,
    limits: config.subscriptions,
    maxQueryCost: config.cost.maxQueryCost,
    logger,
    metrics: frame.metrics?.live ?? null,
    validationRules: graphqlArmor().validationRules,
    formatError: formatError(logger),
    trusted,
  });
  // Before the GraphQL path's own handler, which would take /graphql/stream for itself.
  // An event stream lasts as long as its client wants: its statements are bound by the
  // session's statement_timeout, not by a deadline of the request that opened it.
  frame.app.use(SSE_PATH, withoutDeadline, live.sse);
  return live;
}
