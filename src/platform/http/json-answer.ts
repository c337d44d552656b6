import type { Request, Response } from 'express';
import { sendKept } from '../idempotency/idempotency';
import { answeredNotModified, strongTag } from './conditional-get';

/** JSON's text of `value`; undefined for a value JSON has none for (res.json then sends no body). */
const jsonText = (value: unknown): string | undefined =>
  value === undefined ? undefined : JSON.stringify(value);

function sendJsonText(res: Response, status: number, text: string): void {
  res.status(status);
  if (!res.get('Content-Type')) {
    res.set('Content-Type', 'application/json; charset=utf-8');
  }
  sendKept(res, text, () => res.send(text));
}

/**
 * Answers `value` as JSON with `status`, the bytes and headers Express's `res.json` sends (no
 * replacer, spaces or escaping is configured), through sendKept: a request holding an
 * Idempotency-Key has its answer kept before it is sent.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  const text = jsonText(value);
  if (text === undefined) {
    res.status(status);
    sendKept(res, '', () => res.json(value));
    return;
  }
  sendJsonText(res, status, text);
}

/** A read's answer as sent: its JSON text and the strong ETag of it. */
export interface ReadAnswer {
  text: string;
  etag: string;
}

/** The answer to a read of `value`; undefined for a value JSON has no text for. */
export function readAnswer(value: unknown): ReadAnswer | undefined {
  const text = jsonText(value);
  return text === undefined ? undefined : { text, etag: strongTag(text) };
}

/**
 * Answers a read as sendJson does, with the strong ETag of its bytes; 304 and no body when the
 * request's If-None-Match names it (a client that sends none gets the same bytes as before).
 */
export function sendRead(req: Request, res: Response, status: number, answer: ReadAnswer): void {
  if (!answeredNotModified(req, res, answer.etag)) {
    sendJsonText(res, status, answer.text);
  }
}
