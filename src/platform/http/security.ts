import { type IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { LRUCache } from 'lru-cache';

/** A Host header as browsers send it (name or IP literal, optional port): safe to echo in a policy. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * WebSockets to the host the page came from (GraphiQL's subscriptions). CSP 3 counts ws: and
 * wss: of the same host as 'self', but browsers that predate it (older Safari) do not, so the
 * policy names them. Any other host stays refused.
 */
const sameHostSockets = (req: IncomingMessage): string => {
  const host = req.headers.host ?? '';
  return HOST.test(host) ? `ws://${host} wss://${host}` : '';
};

/** The header writes of a middleware that only sets and removes headers, in order. */
type HeaderWrites = ReadonlyArray<readonly [name: string, value: string | string[] | null]>;

/** A Node middleware, as helmet's are typed. */
type NodeMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** A response never sent: it records the header writes made on it, in order. */
class HeaderRecorder extends ServerResponse {
  readonly writes: Array<readonly [string, string | string[] | null]> = [];

  override setHeader(name: string, value: string | number | readonly string[]): this {
    const text = typeof value === 'number' ? String(value) : value;
    this.writes.push([name, typeof text === 'string' ? text : [...text]]);
    return this;
  }

  override removeHeader(name: string): void {
    this.writes.push([name, null]);
  }
}

/**
 * What `middleware` writes for `req`, recorded on a stand-in response, or null when it did not
 * go on at once and cleanly (then it runs on the real response).
 */
function recordHeaderWrites(middleware: NodeMiddleware, req: IncomingMessage): HeaderWrites | null {
  const recorder = new HeaderRecorder(req);
  let clean = false;
  middleware(req, recorder, (error?: unknown) => {
    clean = error === undefined;
  });
  return clean ? recorder.writes : null;
}

/** How many Host values keep their recorded headers (a client chooses its Host). */
const HOSTS_REMEMBERED = 64;

/**
 * Security headers: everything comes from this origin (WebSockets to the same host included) and
 * no inline script runs (the pages start from served files), nor any code made from a string (no
 * 'unsafe-eval': GraphiQL 5 and Monaco do without); Monaco's web workers are files of this origin
 * too (no blob: workers). Inline styles stay allowed because GraphiQL, Monaco and the docs set them.
 *
 * helmet's answer depends only on the Host header (the policy's WebSocket sources), so it is
 * recorded once per Host and replayed: helmet runs thirteen nested middlewares and builds the
 * policy text on every request (1-1.5% of the service's busy time in the bench's profiles).
 */
export function securityHeaders(): RequestHandler {
  const policy = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", sameHostSockets],
        workerSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  const byHost = new LRUCache<string, HeaderWrites>({ max: HOSTS_REMEMBERED });
  return (req, res, next) => {
    const host = req.headers.host ?? '';
    let writes = byHost.get(host);
    if (!writes) {
      const recorded = recordHeaderWrites(policy, req);
      if (!recorded) {
        policy(req, res, next);
        return;
      }
      writes = recorded;
      byHost.set(host, writes);
    }
    for (const [name, value] of writes) {
      if (value === null) {
        res.removeHeader(name);
      } else {
        res.setHeader(name, value);
      }
    }
    next();
  };
}

/** CORS for browser clients on other origins: none by default, a list, or `*`. */
export function corsPolicy(origins: string[]): RequestHandler {
  if (origins.length === 0) {
    return (_req, _res, next) => next();
  }
  return cors({
    origin: origins.includes('*') ? true : origins,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Apollo-Require-Preflight',
      'Idempotency-Key',
    ],
    exposedHeaders: [
      'WWW-Authenticate',
      'Retry-After',
      'Idempotent-Replayed',
      'RateLimit',
      'RateLimit-Policy',
    ],
    maxAge: 600,
  });
}
