import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../shared/db-errors';

/** The contract's body for every failure that is not a field validation: `{"errors": CODE}`. */
export function sendError(res: Response, status: number, code: string): void {
  res.status(status).json({ errors: code });
}

/** Unknown routes. */
export const notFound: RequestHandler = (_req, res) => sendError(res, 404, 'NOT_FOUND');

const bodyParserErrors: Record<string, [number, string]> = {
  'entity.parse.failed': [400, 'MALFORMED_BODY'],
  'entity.verify.failed': [400, 'MALFORMED_BODY'],
  'request.aborted': [400, 'MALFORMED_BODY'],
  'request.size.invalid': [400, 'MALFORMED_BODY'],
  'entity.too.large': [413, 'PAYLOAD_TOO_LARGE'],
  'parameters.too.many': [413, 'PAYLOAD_TOO_LARGE'],
  'encoding.unsupported': [415, 'UNSUPPORTED_MEDIA_TYPE'],
  'charset.unsupported': [415, 'UNSUPPORTED_MEDIA_TYPE'],
};

/** Last handler: known HTTP-level failures get their code, anything else a bare 500/503. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const type = (error as { type?: unknown } | null)?.type;
    const known = typeof type === 'string' ? bodyParserErrors[type] : undefined;
    if (known) {
      sendError(res, known[0], known[1]);
      return;
    }
    // Express's own client errors (e.g. a path that does not decode) keep their 4xx status.
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(res, status, status === 400 ? 'MALFORMED_REQUEST' : 'BAD_REQUEST');
      return;
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error }, 'database unavailable');
      sendError(res, 503, 'SERVICE_UNAVAILABLE');
      return;
    }
    logger.error({ err: error }, 'unhandled error');
    sendError(res, 500, 'INTERNAL_ERROR');
  };
}
