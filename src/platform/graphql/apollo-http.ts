import type {
  ApolloServer,
  BaseContext,
  HTTPGraphQLRequest,
  HTTPGraphQLResponse,
} from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { holdsKey, sendKept } from '../idempotency/idempotency';
import type { AnswerCache } from '../answer-cache/answer-cache';
import type { AuthContext } from '../auth/tokens';
import { answeredNotModified, strongTag } from '../http/conditional-get';
import { nameRoute } from '../observability/request-tracking';

/** What a GET of the endpoint may name an operation with (GraphQL over HTTP, APQ, documentId). */
const OPERATION_PARAMETERS = ['query', 'extensions', 'documentId'];

/** The media types Apollo weighs when it decides whether a GET wants its landing page. */
const ANSWER_TYPES = ['application/json', 'application/graphql-response+json', 'text/html'];

/**
 * A GET of the endpoint that names no operation and does not ask for HTML, such as
 * `curl localhost:8000/graphql`: it could run nothing, so rather than Apollo's refusal of a
 * possible cross-site request (which it is not: such a GET with a query is still refused so), it
 * is told what the endpoint is and where the IDE is.
 */
function namesNoOperation(req: Request, search: string): boolean {
  if (req.method !== 'GET' || req.accepts(ANSWER_TYPES) === 'text/html') {
    return false;
  }
  const parameters = new URLSearchParams(search);
  return !OPERATION_PARAMETERS.some((name) => parameters.has(name));
}

function signpost(req: Request, res: Response): void {
  const endpoint = req.baseUrl || '/';
  const body = JSON.stringify({
    errors: [
      {
        message:
          `This is the GraphQL endpoint. Open ${endpoint} in a browser for the IDE (GraphiQL); ` +
          'to run an operation, POST a JSON body {"query": "..."} with content-type: ' +
          'application/json.',
        extensions: { code: 'BAD_REQUEST' },
      },
    ],
  });
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Apollo Server's HTTP handler on Express, in place of `@as-integrations/express5`, which does the
 * same with two costs on every request that this one leaves out: the legacy `url.parse` of the
 * whole URL (for its query string) and Express's `res.send` (type sniffing, freshness check)
 * for a body that is always a finished string with its Content-Type already set by Apollo.
 * Measured with the bench's A/B mode (bench/results/ab-apollo-handler.md, 6 rounds): Node CPU per
 * request 0.96x in both GraphQL scenarios (GraphQL meeting 0.84-1.05x by round, myMeetings
 * 0.93-1.02x), req/s 1.03-1.04x: a small gain, inside the noise by the bench's own reading.
 * The JSON body must have been read before (express.json).
 */
export function apolloHandler<Context extends AuthContext>(
  server: ApolloServer<Context>,
  context: (req: Request) => Promise<Context>,
  answers: AnswerCache | null = null,
): RequestHandler {
  server.assertStarted('apolloHandler()');
  const execute = executor(server);
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined) {
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
    }
    const query = req.url.indexOf('?');
    const search = query < 0 ? '' : req.url.slice(query);
    if (namesNoOperation(req, search)) {
      nameRoute(req.baseUrl);
      signpost(req, res);
      return;
    }
    const request: HTTPGraphQLRequest = {
      method: req.method.toUpperCase(),
      headers,
      search,
      body: req.body as unknown,
    };
    if (!answers) {
      await answer(req, res, await execute(request, context(req)));
      return;
    }
    // With the answer cache: statements are recorded once the context is made (see
    // answerCachePlugin, which answers from a kept answer); what the operation wrote is dropped
    // once it is done; a query answered without errors is kept as the bytes it is sent as.
    const { value: response, recording } = await answers.run(
      () => execute(request, context(req)),
      false,
    );
    if (
      recording.keepable &&
      recording.key &&
      response.body.kind === 'complete' &&
      (response.status ?? 200) === 200
    ) {
      // A kept GraphQL answer is parsed and sent through Apollo again: it needs no tag of its own.
      answers.keep(recording.key, { text: response.body.string }, recording);
    }
    await answer(req, res, response);
  };
}

/** Runs a request through Apollo with the context given. */
function executor<Context extends BaseContext>(server: ApolloServer<Context>) {
  return (request: HTTPGraphQLRequest, context: Promise<Context>) =>
    server.executeHTTPGraphQLRequest({ httpGraphQLRequest: request, context: () => context });
}

/**
 * A complete answer's bytes: a query sent by GET (a trusted or persisted document, or a GET the
 * CSRF rules let through) with its ETag, and 304 to a client that holds it.
 */
function sendComplete(req: Request, res: Response, body: string): void {
  if (
    req.method === 'GET' &&
    res.statusCode === 200 &&
    answeredNotModified(req, res, strongTag(body))
  ) {
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(body));
  sendKept(res, body, () => res.end(body));
}

/** Sends Apollo's answer. */
async function answer(req: Request, res: Response, response: HTTPGraphQLResponse): Promise<void> {
  // An operation has named the request already; what runs none is the IDE page, or a refusal.
  nameRoute(
    response.headers.get('content-type')?.startsWith('text/html')
      ? `${req.baseUrl} (IDE)`
      : req.baseUrl,
  );
  for (const [name, value] of response.headers) {
    res.setHeader(name, value);
  }
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    sendComplete(req, res, response.body.string);
    return;
  }
  if (holdsKey(res)) {
    // A keyed answer is kept whole before any of it is sent.
    let whole = '';
    for await (const chunk of response.body.asyncIterator) {
      whole += chunk;
    }
    sendKept(res, whole, () => res.end(whole));
    return;
  }
  // Incremental delivery (@defer): each part as it comes, through compression's flush.
  const flushing = res as typeof res & { flush?: () => void };
  for await (const chunk of response.body.asyncIterator) {
    res.write(chunk);
    flushing.flush?.();
  }
  res.end();
}
