import type { Server } from 'node:http';
import {
  type ExecutionArgs,
  getOperationAST,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type ValidationRule,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { type AppDependencies, type Context, createContext } from '../context';
import type { Config } from '../config';
import { GRAPHQL_LIMITS } from '../graphql/armor';
import { assertWithinNodeLimit } from '../graphql/node-limit';
import type { LiveMetrics } from '../observability/metrics';
import {
  QueryTooLargeError,
  TooManySubscriptionsError,
  UnauthenticatedError,
  WrongTransportError,
} from '../shared/errors';
import type { EventHub } from './event-hub';
import { END_OF_STREAM, EventStream, type NoticeMapper } from './event-stream';
import type { LiveScope } from './live-scope';
import { type Refusal, type SocketSession, SocketSessions } from './socket-sessions';

export interface LiveServerOptions {
  httpServer: Server;
  path: string;
  schema: GraphQLSchema;
  deps: AppDependencies;
  hub: EventHub;
  limits: Config['subscriptions'];
  logger: Logger;
  metrics: LiveMetrics | null;
  /** The HTTP face's validation rules (graphql-armor's limits), applied here too. */
  validationRules: readonly ValidationRule[];
  /** The HTTP face's error shaping (coded errors as they are, anything else masked). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
}

/** The WebSocket face: started with the HTTP server, closed before the database. */
export interface LiveServer {
  close(): Promise<void>;
}

/** How long shutdown waits for sockets to finish their closing handshake. */
const CLOSE_GRACE_MS = 1_000;
/** Largest client message: a subscribe message carries one document and its variables. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** WebSocket's "going away" (RFC 6455): the server is shutting down. */
const GOING_AWAY = 1001;
/** WebSocket's "try again later" (RFC 6455): a subscriber that did not keep up. */
const TRY_AGAIN_LATER = 1013;

type Extra = { session?: SocketSession };

/** A subscribe message's variables: an object, as graphql-ws has already checked. */
const variablesOf = (variables: unknown): Record<string, unknown> =>
  variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : {};

const isRefusal = (value: SocketSession | Refusal): value is Refusal => 'code' in value;

/**
 * GraphQL subscriptions over WebSocket (graphql-transport-ws, the graphql-ws protocol) on the
 * GraphQL path: authenticated once in `connection_init`, subscriptions only (queries and
 * mutations go over HTTP), each event read as its subscriber may see it.
 */
export function startLiveServer(options: LiveServerOptions): LiveServer {
  const { deps, hub, limits, logger, metrics } = options;
  const sessions = new SocketSessions(deps, limits.socketsPerUser, metrics);
  const wss = new WebSocketServer({
    server: options.httpServer,
    path: options.path,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const rules = [...specifiedRules, ...options.validationRules];
  const format = (errors: readonly GraphQLError[]): GraphQLFormattedError[] =>
    errors.map((error) => options.formatError(error.toJSON(), error));

  /** A subscription's stream: the context renewed before each notice, failures skipped. */
  function stream<T>(
    session: SocketSession,
    context: Context,
    live: LiveScope,
    topic: string,
    map: NoticeMapper<T>,
  ): EventStream<T> {
    metrics?.subscriptionsActive.inc();
    return new EventStream<T>({
      listen: (push) => hub.on(topic, push),
      capacity: limits.queueSize,
      onOverflow: () => {
        metrics?.eventsDropped.inc({ reason: 'slow_consumer' });
        logger.warn({ component: 'events', userId: session.user.id }, 'slow subscriber closed');
        session.close(TRY_AGAIN_LATER, 'Slow consumer');
      },
      onEnd: () => metrics?.subscriptionsActive.dec(),
      map: async (notice) => {
        try {
          const renewed = await createContext(deps, session.request, live);
          if (renewed.auth.failure !== null) {
            // The user was deactivated (or their token expired) since the socket opened.
            session.close(CloseCode.Forbidden, 'Forbidden');
            return END_OF_STREAM;
          }
          Object.assign(context, renewed);
          const value = await map(notice);
          if (value !== null && value !== END_OF_STREAM) {
            metrics?.eventsDelivered.inc();
          }
          return value;
        } catch (error) {
          metrics?.eventsDropped.inc({ reason: 'error' });
          logger.warn({ component: 'events', err: error }, 'an event could not be read');
          return null;
        }
      },
    });
  }

  async function subscriptionArgs(
    session: SocketSession,
    payload: { query: string; operationName?: string | null; variables?: unknown },
    active: number,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    let document;
    try {
      document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    } catch (error) {
      return [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')];
    }
    const invalid = validate(options.schema, document, rules);
    if (invalid.length > 0) {
      return invalid;
    }
    const operation = getOperationAST(document, payload.operationName);
    if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [new WrongTransportError('OPERATION_NEEDS_HTTP')];
    }
    try {
      assertWithinNodeLimit(options.schema, document, operation, variablesOf(payload.variables));
    } catch (error) {
      if (error instanceof QueryTooLargeError) {
        return [error];
      }
      throw error;
    }
    if (active >= limits.perSocket) {
      return [new TooManySubscriptionsError(limits.perSocket)];
    }
    const live: LiveScope = {
      stream: (topic, map) => stream(session, context, live, topic, map),
    };
    const context = await createContext(deps, session.request, live);
    return {
      schema: options.schema,
      document,
      operationName: payload.operationName,
      variableValues: variablesOf(payload.variables),
      contextValue: context,
    };
  }

  const server = useServer<Record<string, unknown>, Extra>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const opened = await sessions.open(
          ctx.extra.socket,
          ctx.extra.request,
          ctx.connectionParams,
        );
        if (isRefusal(opened)) {
          ctx.extra.socket.close(opened.code, opened.reason);
          return false;
        }
        ctx.extra.session = opened;
        return true;
      },
      onClose: (ctx) => ctx.extra.session?.end(),
      onSubscribe: (ctx, _id, payload) => {
        const session = ctx.extra.session;
        // graphql-ws closes a socket that subscribes before it is acknowledged (4401) first.
        if (!session) {
          return [new UnauthenticatedError('NOT_AUTHENTICATED')];
        }
        // graphql-ws has already reserved this one's place among them.
        const active = Object.keys(ctx.subscriptions).length - 1;
        return subscriptionArgs(session, payload, active);
      },
      onError: (_ctx, _id, _payload, errors) => format(errors),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: format(result.errors) } : undefined,
    },
    wss,
  );

  return {
    async close() {
      const closing = [...wss.clients].map(
        (socket) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              socket.terminate();
              resolve();
            }, CLOSE_GRACE_MS);
            socket.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            socket.close(GOING_AWAY, 'Server shutting down');
          }),
      );
      await Promise.all(closing);
      await server.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
