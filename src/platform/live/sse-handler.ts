import { cursorPlace, type Placed } from './change-log';
import type { ExecutionArgs, GraphQLError, GraphQLFormattedError } from 'graphql';
import type { ExecutionResult, OperationArgs, OperationContext } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/express';
import type { RequestHandler } from 'express';
import type { LiveOperations } from './live-operations';
import { isRefusal, type LiveSessions, type Refusal } from './live-sessions';
import { nameRoute } from '../observability/request-tracking';

/** The cursor of the event each stream is about to write. */
const pendingId = new WeakMap<object, string>();

/** Where subscriptions are served as Server-Sent Events (graphql-sse, distinct connections). */
export const SSE_PATH = '/graphql/stream';

/**
 * Subscriptions for clients that cannot open WebSockets: one request per subscription (the
 * graphql-sse protocol's distinct connections mode), authenticated by its `Authorization` header
 * as any HTTP request; the same bounds and rules as over WebSocket. A refused request answers
 * 401 (no or a bad token) or 429 (too many connections of one user).
 */
export function sseHandler<N extends Placed>(
  operations: LiveOperations<N>,
  sessions: LiveSessions,
): RequestHandler {
  const handler = createHandler({
    // No stream tokens: the single connection mode (a reserved stream) is not offered.
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      const res = req.context.res;
      const opened = await sessions.start(
        req.headers.get('authorization') ?? undefined,
        req.raw.ip ?? 'unknown',
        () => res.end(),
      );
      if (isRefusal(opened)) {
        return answer(refusalStatus(opened), opened.reason, operations.format([opened.error]));
      }
      res.once('close', () => opened.end());
      // Each event is sent with its cursor as its `id`; a client reconnecting with the
      // standard Last-Event-ID header resumes after it (EventSource does so by itself).
      opened.delivered = (cursor) => {
        pendingId.set(res, cursor);
      };
      const lastEventId = req.headers.get('last-event-id');
      const prepared = await operations.prepare(
        opened,
        params,
        0,
        lastEventId && cursorPlace(lastEventId) ? lastEventId : null,
      );
      if (isRefused(prepared)) {
        opened.end();
        // Refused before it runs, as the HTTP face refuses a request: 400 and the errors.
        return answer(400, 'Bad Request', operations.format(prepared));
      }
      // Our context is an object; graphql-sse's type for it only lists what it may be.
      return prepared as OperationArgs<OperationContext>;
    },
    // Kept escape: graphql-sse types a result's errors as GraphQLError objects, though it only
    // serializes them; the formatted errors (GraphQLFormattedError) are what goes out, and a
    // GraphQLError cannot be rebuilt from one with the same locations.
    onNext: (_ctx, _req, result) =>
      result.errors
        ? ({ ...result, errors: operations.format(result.errors) } as unknown as ExecutionResult)
        : undefined,
  });
  return (req, res, next) => {
    nameRoute(SSE_PATH);
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    // graphql-sse writes each message whole; a `next` one is sent with the cursor it carries.
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const id = pendingId.get(res);
      if (id !== undefined && typeof chunk === 'string' && chunk.startsWith('event: next')) {
        pendingId.delete(res);
        return write(`id: ${id}\n${chunk}`, ...rest);
      }
      return write(chunk, ...rest);
    }) as typeof res.write;
    handler(req, res).catch(next);
  };
}

const isRefused = (prepared: ExecutionArgs | readonly GraphQLError[]) => Array.isArray(prepared);

/** A refusal as graphql-sse sends it: a status and a JSON body of GraphQL errors. */
const answer = (status: number, statusText: string, errors: readonly GraphQLFormattedError[]) =>
  [
    JSON.stringify({ errors }),
    { status, statusText, headers: { 'content-type': 'application/json; charset=utf-8' } },
  ] as const;

/** 401 for a missing or bad token (as over HTTP), 429 for too many connections. */
const refusalStatus = (refusal: Refusal): number =>
  refusal.error.extensions['code'] === 'UNAUTHENTICATED' ? 401 : 429;
