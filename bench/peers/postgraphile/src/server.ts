// The polyfill goes first: PostGraphile's modules must find Promise.withResolvers on Node 20.
import './with-resolvers';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/node';
import { bearerVerifier } from './bearer';
import { preset } from './preset';
import { countingPool } from './statements';

/**
 * PostGraphile v5 on the benchmark database, a peer the harness measures with `--peers`.
 *
 * Environment: DATABASE_URL, HOST, PORT, DB_POOL_SIZE (default 10, as the service), and AUTH:
 * `none` serves anyone; `token` answers 401 unless `Authorization: Bearer` carries an access token
 * that verifies against JWT_PUBLIC_KEY_X, JWT_ISSUER and JWT_AUDIENCE, and gives the caller's id
 * to PostgreSQL. GET /health/readiness answers 204 once the schema is built; GET /__stats answers
 * {"requests", "statements", "transactionControl"} as the baseline's does.
 */

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`${name} is required`);
  }
  return value;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(body);
}

async function main(): Promise<void> {
  const auth = process.env['AUTH'] ?? 'none';
  if (auth !== 'none' && auth !== 'token') {
    throw new Error(`AUTH must be none or token, not ${auth}`);
  }
  const verify =
    auth === 'token'
      ? await bearerVerifier({
          publicKeyX: required('JWT_PUBLIC_KEY_X'),
          issuer: required('JWT_ISSUER'),
          audience: required('JWT_AUDIENCE'),
        })
      : null;
  const callers = new WeakMap<IncomingMessage, string>();
  const { pool, counts } = countingPool(
    required('DATABASE_URL'),
    Number(process.env['DB_POOL_SIZE'] ?? 10),
  );
  const instance = postgraphile(preset(pool, verify && ((req) => callers.get(req))));
  await instance.getSchema();
  const graphql = instance.createServ(grafserv).createHandler();
  let requests = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.url === '/health/readiness') {
      res.writeHead(204).end();
      return;
    }
    if (req.url === '/__stats') {
      send(res, 200, JSON.stringify({ requests, ...counts }));
      return;
    }
    requests += 1;
    if (verify) {
      const caller = await verify(req);
      if (caller === null) {
        send(res, 401, '{"errors":[{"message":"invalid or missing bearer token"}]}');
        return;
      }
      callers.set(req, caller);
    }
    graphql(req, res, () => send(res, 404, '{"errors":[{"message":"not found"}]}'));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`postgraphile peer: ${String(error)}\n`);
      if (!res.headersSent) {
        send(res, 500, '{"errors":[{"message":"internal error"}]}');
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  const shutdown = (): void => {
    server.close(() => {
      void Promise.resolve(instance.release())
        .then(() => pool.end())
        .then(() => process.exit(0));
    });
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  server.listen(Number(process.env['PORT'] ?? 8002), process.env['HOST'] ?? '127.0.0.1');
}

main().catch((error: unknown) => {
  process.stderr.write(`postgraphile peer failed to start: ${String(error)}\n`);
  process.exit(1);
});
