import type { ApolloServer, BaseContext, HTTPGraphQLRequest } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import type { Request, RequestHandler } from 'express';

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
export function apolloHandler<Context extends BaseContext>(
  server: ApolloServer<Context>,
  context: (req: Request) => Promise<Context>,
): RequestHandler {
  server.assertStarted('apolloHandler()');
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined) {
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
    }
    const query = req.url.indexOf('?');
    const request: HTTPGraphQLRequest = {
      method: req.method.toUpperCase(),
      headers,
      search: query < 0 ? '' : req.url.slice(query),
      body: req.body as unknown,
    };
    const response = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: request,
      context: () => context(req),
    });
    for (const [name, value] of response.headers) {
      res.setHeader(name, value);
    }
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.setHeader('content-length', Buffer.byteLength(response.body.string));
      res.end(response.body.string);
      return;
    }
    // Incremental delivery (@defer): each part as it comes, through compression's flush.
    const flushing = res as typeof res & { flush?: () => void };
    for await (const chunk of response.body.asyncIterator) {
      res.write(chunk);
      flushing.flush?.();
    }
    res.end();
  };
}
