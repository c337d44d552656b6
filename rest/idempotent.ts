import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { sendHttpError } from '../src/platform/http/http-errors';
import {
  fingerprintOf,
  type Idempotency,
  keepsStatus,
  rawBodyOf,
  sentKey,
} from '../src/platform/idempotency/idempotency';
import { IdempotencyKeyError } from '../src/platform/shared/errors';
import { mediaType, readBody } from './body';
import type { RouteSpec } from './route';

const NO_BYTES = Buffer.alloc(0);

/**
 * The body as the fingerprint reads it: the bytes the JSON or URL-encoded parser read, or for
 * multipart (whose boundary differs on every send) its fields, read here once for the route.
 */
async function bodyBytes(req: Request, route: RouteSpec): Promise<Buffer> {
  if (route.body === 'none') {
    return NO_BYTES;
  }
  const raw = rawBodyOf(req);
  if (raw) {
    return raw;
  }
  return mediaType(req) === 'multipart/form-data'
    ? Buffer.from(JSON.stringify(await readBody(req, route.body)))
    : NO_BYTES;
}

/**
 * A POST route's Idempotency-Key step, after the body parsers and before the handler: without
 * the header it only passes on. With one, the request is the same one as an earlier request when
 * its method, path (with the query) and body are (same bytes, same media type); the key belongs
 * to the caller, or without a valid token to the route. Refusals are answered in the contract's
 * shape on every route, the token endpoint's included (400 `IDEMPOTENCY_KEY_INVALID`, 409
 * `IDEMPOTENCY_KEY_IN_USE`, 422 `IDEMPOTENCY_KEY_REUSED`).
 */
export function idempotentRoute(
  route: RouteSpec,
  label: string,
  idempotency: Idempotency,
  logger: Logger,
): RequestHandler {
  const style = route.errorStyle ?? 'contract';
  const fail = (res: Parameters<RequestHandler>[1], error: unknown): void =>
    sendHttpError(res, error, error instanceof IdempotencyKeyError ? 'contract' : style, logger);
  return (req, res, next) => {
    const sent = sentKey(req);
    if (sent.kind === 'none') {
      next();
      return;
    }
    if (sent.kind === 'invalid') {
      fail(res, new IdempotencyKeyError('IDEMPOTENCY_KEY_INVALID'));
      return;
    }
    void (async () => {
      let body: Buffer;
      try {
        body = await bodyBytes(req, route);
      } catch (error) {
        fail(res, error);
        return;
      }
      const fingerprint = fingerprintOf([
        req.method,
        req.originalUrl,
        route.body === 'none' ? '' : (mediaType(req) ?? ''),
        body,
      ]);
      await idempotency.serve(
        req,
        res,
        { key: sent.key, route: `POST ${label}`, fingerprint, keeps: keepsStatus, fail },
        next,
      );
    })().catch(next);
  };
}
