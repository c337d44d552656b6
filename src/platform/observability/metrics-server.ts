import { createServer, type Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import type { ObservabilityConfig } from './observability.settings';

/** Serves metrics on a port of their own (kept off the public one), at the configured path. */
export function listenForMetrics(
  handler: RequestHandler,
  settings: Pick<ObservabilityConfig['metrics'], 'path'> & { port: number | null },
  host: string,
): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.get(settings.path, handler);
  const server = createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port ?? 0, host, () => resolve(server));
  });
}

/** A handler answering `produce()`'s text with the registry's content type. */
export function exposition(
  registry: { contentType: string },
  produce: () => Promise<string>,
): RequestHandler {
  return (_req, res, next) => {
    produce()
      .then((text) => {
        res.setHeader('content-type', registry.contentType);
        res.end(text);
      })
      .catch(next);
  };
}
