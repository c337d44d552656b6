import type { Response } from 'express';
import { sendKept } from '../idempotency/idempotency';

/**
 * Answers `value` as JSON with `status`, the bytes and headers Express's `res.json` sends (no
 * replacer, spaces or escaping is configured), through sendKept: a request holding an
 * Idempotency-Key has its answer kept before it is sent.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  res.status(status);
  // What res.json sends for a value JSON has no text for (undefined): no body at all.
  const text: string | undefined = value === undefined ? undefined : JSON.stringify(value);
  if (text === undefined) {
    sendKept(res, '', () => res.json(value));
    return;
  }
  if (!res.get('Content-Type')) {
    res.set('Content-Type', 'application/json; charset=utf-8');
  }
  sendKept(res, text, () => res.send(text));
}
