import type { Placed } from './change-log';
import type { IncomingMessage, Server } from 'node:http';
import type { RequestHandler } from 'express';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { UnauthenticatedError } from '../shared/errors';
import { LiveOperations, type LiveOperationsOptions } from './live-operations';
import { isRefusal, type LiveSession, LiveSessions } from './live-sessions';
import { sseHandler } from './sse-handler';

export interface LiveServerOptions<N extends Placed> extends LiveOperationsOptions<N> {
  httpServer: Server;
  path: string;
  /** The client's address of an upgrade request (behind trusted proxies, theirs to tell). */
  clientAddress(request: IncomingMessage): string;
}

/** The subscription faces: WebSocket on the GraphQL path, and an event-stream handler. */
export interface LiveServer {
  /** Serves subscriptions as Server-Sent Events (mount at SSE_PATH). */
  sse: RequestHandler;
  /** Ends every socket and stream (1001), before the database closes. */
  close(): Promise<void>;
}

/** How long shutdown waits for sockets to finish their closing handshake. */
const CLOSE_GRACE_MS = 1_000;
/** Largest client message: a subscribe message carries one document and its variables. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** WebSocket's "going away" (RFC 6455): the server is shutting down. */
const GOING_AWAY = 1001;

type Extra = { session?: LiveSession };

/** The `Authorization` value of a `connection_init` payload (either letter case). */
function authorizationOf(
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const value = params?.['Authorization'] ?? params?.['authorization'];
  return typeof value === 'string' ? value : undefined;
}

/** Resolves when `socket` has closed, or after CLOSE_GRACE_MS, when it is ended by force. */
function closedOrTerminated(socket: WebSocket): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.terminate();
      resolve();
    }, CLOSE_GRACE_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * GraphQL subscriptions over WebSocket (graphql-transport-ws, the graphql-ws protocol) on the
 * GraphQL path, authenticated once in `connection_init`; and over Server-Sent Events for clients
 * that cannot open WebSockets. Both serve subscriptions only, with the same bounds.
 */
export function startLiveServer<N extends Placed>(options: LiveServerOptions<N>): LiveServer {
  const operations = new LiveOperations(options);
  const sessions = new LiveSessions(
    options.authenticate,
    options.limits.socketsPerUser,
    options.metrics,
  );
  // A session ended on any instance closes its connections here at once, not at their next event.
  const stopWatching = options.hub.onSessionsEnded((userId) => {
    sessions.recheck(userId).catch((error: unknown) => {
      options.logger.warn({ component: 'events', err: error }, 'open connections not re-checked');
    });
  });
  const wss = new WebSocketServer({
    server: options.httpServer,
    path: options.path,
    maxPayload: MAX_MESSAGE_BYTES,
  });

  const server = useServer<Record<string, unknown>, Extra>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        const opened = await sessions.start(
          authorizationOf(ctx.connectionParams),
          options.clientAddress(request),
          (code, reason) => socket.close(code, reason),
        );
        if (isRefusal(opened)) {
          socket.close(opened.code, opened.reason);
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
        return operations.prepare(session, payload, active);
      },
      onError: (_ctx, _id, _payload, errors) => operations.format(errors),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: operations.format(result.errors) } : undefined,
    },
    wss,
  );

  return {
    sse: sseHandler(operations, sessions),
    async close() {
      stopWatching();
      const closing = [...wss.clients].map(closedOrTerminated);
      // Event streams end; sockets (those not signed in too) are told the server is going away.
      sessions.closeAll(GOING_AWAY, 'Server shutting down');
      for (const socket of wss.clients) {
        socket.close(GOING_AWAY, 'Server shutting down');
      }
      await Promise.all(closing);
      await server.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
