import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** CSP hashes of a page's inline scripts, so the page may run them and nothing else inline. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
}

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

/**
 * Security headers: everything comes from this origin (WebSockets to the same host included);
 * the Playground's inline start-up script is allowed by hash; inline styles stay allowed because
 * the Playground and the docs set them.
 */
export function securityHeaders(inlineScripts: string[]): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScripts],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", sameHostSockets],
        workerSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
}

/** CORS for browser clients on other origins: none by default, a list, or `*`. */
export function corsPolicy(origins: string[]): RequestHandler {
  if (origins.length === 0) {
    return (_req, _res, next) => next();
  }
  return cors({
    origin: origins.includes('*') ? true : origins,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Apollo-Require-Preflight'],
    exposedHeaders: ['WWW-Authenticate', 'Retry-After'],
    maxAge: 600,
  });
}
