import { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import { requireViewer, type RequestInfo } from '../../platform/auth/tokens';
import { notModified } from '../../platform/http/conditional-get';
import { sendHttpError } from '../../platform/http/http-errors';
import { currentRequest } from '../../platform/observability/request-tracking';
import { ValidationFailedError } from '../../platform/shared/errors';
import { GraphQLUUID } from '../../platform/shared/scalars';
import type { Turns } from '../../platform/shared/turns';
import type { Context } from './calendar.context';
import { CALENDAR_PATH, FEED_ROUTE, MEETING_ROUTE } from './calendar.links';
import type { PendingDocument } from './calendar.service';
import type { IcsDocument } from './ics';

const CONTENT_TYPE = 'text/calendar; charset=utf-8';

/**
 * How many feed documents a process builds at once; more requests wait their turn. A feed of 200
 * meetings is ~170 KiB of text built from its rows and ical-generator's objects, all alive until
 * it is written: 32 built at once took the process to 316 MiB (bench/results/peak-memory.md).
 * Building is CPU work, so more at once than the cores gives no more throughput, only memory.
 */
export const FEED_BUILDS_AT_ONCE = 2;

/**
 * Names the request by its route pattern in the request log and metrics: the feed's path holds
 * its secret, which must never reach a log line.
 */
function label(route: string): void {
  const scope = currentRequest();
  if (scope) {
    scope.route = `${CALENDAR_PATH}${route}`;
  }
}

/** A meeting id from the path, in the form the service reads it (else 422, as REST answers). */
function meetingIdOf(text: string): string {
  try {
    return GraphQLUUID.parseValue(text) as string;
  } catch {
    throw ValidationFailedError.of('meeting_id', 'INVALID_UUID');
  }
}

/**
 * Answers a document, or 304 when the client holds it (If-None-Match; If-Modified-Since is not
 * read: a meeting can leave a feed without any newer timestamp, which the ETag does see), without
 * building it when the ETag is known first. A document still to be built waits for one of
 * the build turns, held until it is written, at most their `maxWaitMs` (then 503, Retry-After). `res.end`, not `res.send`, which would judge
 * If-Modified-Since itself.
 */
async function answer(
  req: Request,
  res: Response,
  pending: PendingDocument,
  builds: { turns: Turns; maxWaitMs: number } | null,
): Promise<void> {
  // Set with the answer itself: a request shed while it waits is answered JSON (503).
  const headers = {
    'Content-Type': CONTENT_TYPE,
    ETag: pending.etag,
    // The feed's address is a credential, the meeting's needs one: no shared cache keeps either.
    'Cache-Control': 'private, no-cache',
  };
  if (notModified(req.headers['if-none-match'], pending.etag)) {
    res.status(304).set(headers).end();
    return;
  }
  const write = async (): Promise<void> => {
    // A client that left while the request waited is not built a document.
    if (req.socket.destroyed) {
      return;
    }
    const document = await pending.document();
    res
      .status(200)
      .set(headers)
      .set({
        'Last-Modified': document.lastModified.toUTCString(),
        'Content-Length': String(Buffer.byteLength(document.text)),
      })
      .end(document.text);
  };
  await (builds ? builds.turns.run(write, builds.maxWaitMs) : write());
}

/** A document built already, as one to answer. */
const built = (document: IcsDocument): PendingDocument => ({
  etag: document.etag,
  document: () => Promise.resolve(document),
});

/**
 * The calendar documents over HTTP, mounted at CALENDAR_PATH: a personal feed, named by its
 * secret and read without a token (calendar apps subscribe to an address), and one meeting's
 * document for a caller with a bearer token who may see it. The app gives the context factory.
 */
export function calendarRoutes(options: {
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
  /** The turns of this process's feed builds (FEED_BUILDS_AT_ONCE of them). */
  feedBuilds: Turns;
  /** How long a feed request waits for its turn before it is answered 503 (FEED_MAX_WAIT_MS). */
  feedMaxWaitMs: number;
}): Router {
  const router = Router();
  const feedBuilds = { turns: options.feedBuilds, maxWaitMs: options.feedMaxWaitMs };
  router.get(FEED_ROUTE, async (req, res) => {
    label(FEED_ROUTE);
    try {
      // The secret is the credential: a bearer token, if one is sent, is not read.
      const context = await options.createContext({
        authorization: undefined,
        ip: req.ip ?? 'unknown',
      });
      await answer(
        req,
        res,
        await context.services.calendar.feedDocument(String(req.params['secret'])),
        feedBuilds,
      );
    } catch (error) {
      sendHttpError(res, error, 'contract', options.logger);
    }
  });
  router.get(MEETING_ROUTE, async (req, res) => {
    label(MEETING_ROUTE);
    try {
      const context = await options.createContext({
        authorization: req.headers.authorization,
        ip: req.ip ?? 'unknown',
      });
      const viewer = requireViewer(context);
      const meetingId = meetingIdOf(String(req.params['meetingId']));
      const document = await context.services.calendar.meetingDocument(viewer, meetingId);
      await answer(req, res, built(document), null);
    } catch (error) {
      sendHttpError(res, error, 'contract', options.logger);
    }
  });
  return router;
}
