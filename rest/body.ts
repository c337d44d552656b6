import type { Request } from 'express';
import busboy from 'busboy';
import { HttpRequestError } from '../src/platform/http/http-errors';

/** What a route reads from the request body. */
export type BodyKind =
  /** Nothing: the body is never read (approve, decline). */
  | 'none'
  /** `application/json` only. */
  | 'json'
  /** JSON, `application/x-www-form-urlencoded` or `multipart/form-data` fields. */
  | 'form';

/** An HTTP-level failure to read the body, with the contract's status and code. */
export class BodyError extends HttpRequestError {
  constructor(
    status: number,
    code: 'MALFORMED_BODY' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE',
  ) {
    super(status, code);
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
const MULTIPART_LIMITS = { fields: 50, fieldSize: 64 * 1024, files: 0, parts: 50 };

const isJson = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

export function mediaType(req: Request): string | null {
  const header = req.headers['content-type'];
  return header ? (header.split(';')[0] ?? '').trim().toLowerCase() : null;
}

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

// A keyed request's multipart body is read before its key is claimed (its fields are part of
// the fingerprint, rest/idempotent.ts), and again by the route: once.
const multipartBodies = new WeakMap<Request, Promise<Record<string, unknown>>>();

function readMultipart(req: Request): Promise<Record<string, unknown>> {
  let read = multipartBodies.get(req);
  if (!read) {
    read = parseMultipart(req);
    multipartBodies.set(req, read);
  }
  return read;
}

function parseMultipart(req: Request): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: MULTIPART_LIMITS });
    } catch {
      reject(new BodyError(400, 'MALFORMED_BODY'));
      return;
    }
    const fields: Record<string, unknown> = {};
    let failure: BodyError | null = null;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        failure = new BodyError(413, 'PAYLOAD_TOO_LARGE');
      }
      fields[name] = name in fields ? [fields[name], value].flat() : value;
    });
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('fieldsLimit', () => (failure = new BodyError(413, 'PAYLOAD_TOO_LARGE')));
    parser.on('partsLimit', () => (failure = new BodyError(413, 'PAYLOAD_TOO_LARGE')));
    parser.on('error', () => reject(new BodyError(400, 'MALFORMED_BODY')));
    parser.on('close', () => (failure ? reject(failure) : resolve(fields)));
    req.pipe(parser);
  });
}

/**
 * Reads the body a route accepts. JSON and URL-encoded bodies were parsed by Express already
 * (`req.body`); multipart is parsed here. A body of another type is refused with 415.
 */
export async function readBody(req: Request, kind: BodyKind): Promise<Record<string, unknown>> {
  if (kind === 'none' || !hasBody(req)) {
    return {};
  }
  const type = mediaType(req);
  const acceptsForms = kind === 'form';
  if (type && isJson(type)) {
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new BodyError(400, 'MALFORMED_BODY');
    }
    return body as Record<string, unknown>;
  }
  if (acceptsForms && type === 'application/x-www-form-urlencoded') {
    return (req.body ?? {}) as Record<string, unknown>;
  }
  if (acceptsForms && type === 'multipart/form-data') {
    return readMultipart(req);
  }
  throw new BodyError(415, 'UNSUPPORTED_MEDIA_TYPE');
}
