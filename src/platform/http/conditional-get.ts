import { hash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * Whether a GET may be answered 304 Not Modified: the request's If-None-Match names the current
 * representation's entity tag, by weak comparison (RFC 9110 §13.1.2), or is `*`.
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) {
    return false;
  }
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === current);
}

/**
 * Tags a read's answer with `etag` and, when the request's If-None-Match names it, answers 304
 * without a body (true: answered). A client that sends no condition is only given the tag.
 */
export function answeredNotModified(req: Request, res: Response, etag: string): boolean {
  res.setHeader('ETag', etag);
  if (!notModified(req.headers['if-none-match'], etag)) {
    return false;
  }
  res.statusCode = 304;
  res.removeHeader('content-type');
  res.end();
  return true;
}

/**
 * The strong entity tag of an answer's bytes (RFC 9110 §8.8.3): two answers share it only when
 * they are the same bytes. SHA-1 (as a fingerprint, not a signature), 27 characters.
 */
export function strongTag(body: string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}
