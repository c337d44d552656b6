import { createHash } from 'node:crypto';
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

/**
 * Security headers: everything comes from this origin; the Playground's inline start-up script
 * is allowed by hash; inline styles stay allowed because the Playground and the docs set them.
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
        connectSrc: ["'self'"],
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
