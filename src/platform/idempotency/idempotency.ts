import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { currentRequest } from '../observability/request-tracking';
import { IdempotencyKeyError } from '../shared/errors';
import type { ClaimOutcome, IdempotencyKeys, KeptAnswer, KeyClaim } from './idempotency-keys';

/**
 * Idempotency-Key (docs/rest-contract.md §8, draft-ietf-httpapi-idempotency-key-header) on every
 * REST POST and every GraphQL mutation. Each face says what makes a request keyed and what makes
 * two requests the same one (rest/idempotent.ts, src/platform/graphql/idempotency-http.ts); this
 * file claims the key, answers a kept answer again, and keeps the answer of the request that ran. A
 * request without the header never reaches it.
 */

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Marks an answer sent again (or rebuilt) for a retry. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a key is kept. */
export const IDEMPOTENCY_KEY_KEEP_MS = 24 * 3_600_000;

/** The header as sent: absent, one key, or anything else. */
export type SentKey = { kind: 'none' } | { kind: 'invalid' } | { kind: 'key'; key: string };

// 1–255 printable ASCII characters; spaces only inside (a header value loses its outer ones).
const KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;
// The draft's form: a Structured Field string, `"…"` with `\"` and `\\` escapes.
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/** The key a request sends: the draft's quoted form or a bare one, the same key either way. */
export function sentKey(req: IncomingMessage): SentKey {
  if (req.headers[IDEMPOTENCY_KEY_HEADER] === undefined) {
    return { kind: 'none' };
  }
  const values = req.headersDistinct[IDEMPOTENCY_KEY_HEADER] ?? [];
  const [value] = values;
  if (values.length !== 1 || value === undefined) {
    return { kind: 'invalid' };
  }
  const quoted = SF_STRING.exec(value);
  const key = quoted ? (quoted[1] as string).replace(/\\(["\\])/g, '$1') : value;
  return KEY.test(key) ? { kind: 'key', key } : { kind: 'invalid' };
}

/** SHA-256 over the parts, each length-prefixed (so no two lists of parts hash alike). */
export function fingerprintOf(parts: ReadonlyArray<string | Buffer>): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) {
    const data = typeof part === 'string' ? Buffer.from(part) : part;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    hash.update(length).update(data);
  }
  return hash.digest();
}

const rawBodies = new WeakMap<IncomingMessage, Buffer>();

/** A body parser's `verify`: keeps the bytes of a keyed request's body for its fingerprint. */
export function keepRawBody(req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (req.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) {
    rawBodies.set(req, body);
  }
}

/** The body bytes a parser kept (see keepRawBody). */
export const rawBodyOf = (req: IncomingMessage): Buffer | undefined => rawBodies.get(req);

/**
 * Whether an answer with this status is kept for retries. Kept: every answer that reflects an
 * outcome (2xx) or a refusal the same request meets again (4xx). Let go, so the retry runs again:
 * 5xx, and the 4xx that a retry may not meet (401 credentials, 408 timeout, 429 rate limit).
 */
export const keepsStatus = (status: number): boolean =>
  status < 500 && status !== 401 && status !== 408 && status !== 429;

/** What a face says of one keyed request. */
export interface KeyedRequest {
  key: string;
  /** `POST /api/v1/meeting/create`: the key's scope when the caller has no valid token. */
  route: string;
  /** What makes two requests the same one (see fingerprintOf). */
  fingerprint: Buffer;
  /** Whether this answer is kept for retries. */
  keeps(status: number, body: Buffer): boolean;
  /** Answers a refusal (IdempotencyKeyError) or a failure to claim, in the face's shape. */
  fail(res: Response, error: unknown): void;
}

/** The headers that belong to an answer and are sent again with it. */
const KEPT_HEADERS = ['content-type', 'cache-control'];

// Keeping the answer runs after the request's waits may have used its budget: a short one more.
const KEEP_BUDGET_MS = 5_000;

/** Sends a kept answer again, byte for byte. */
function replay(res: Response, answer: KeptAnswer): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) {
    res.setHeader(name, value);
  }
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('Content-Length', String(answer.body.length));
  res.end(answer.body);
}

/** Keeps a held request's answer (or lets its key go); the answer is sent once it has run. */
type Keeper = (status: number, body: Buffer) => Promise<void>;

// The responses of requests running under a claimed key: the link between the key and the face
// (REST router, GraphQL handler, error answers) that builds the answer and sends it.
const held = new WeakMap<ServerResponse, Keeper>();

/** Whether the request holds a claimed key, whose answer is sent whole through sendKept. */
export const holdsKey = (res: ServerResponse): boolean => held.has(res);

/**
 * Sends a finished answer (its status and headers set, `body` the bytes `send` writes): at once,
 * or for a request holding a key once the answer is kept (or the key let go), before the client
 * can see it and retry. Every face that answers a keyed request sends through here.
 */
export function sendKept(res: ServerResponse, body: string | Buffer, send: () => void): void {
  const keep = held.get(res);
  if (!keep) {
    send();
    return;
  }
  held.delete(res);
  void keep(res.statusCode, typeof body === 'string' ? Buffer.from(body) : body)
    .catch(() => undefined)
    .then(send);
}

/** The answer's own headers, to keep. */
function keptHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) {
      headers[name] = String(value);
    }
  }
  return headers;
}

/** How often, and for how long, an answer that could not be kept (or a key let go) is retried. */
const FINISH_RETRY_MS = 1_000;
const FINISH_RETRY_FOR_MS = 120_000;

/** Claims keys, answers retries, keeps answers: the HTTP side of idempotency keys. */
export class Idempotency {
  /** Answers to keep (or keys to let go) that met the database away, retried until it is back. */
  private readonly unfinished = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly keys: IdempotencyKeys,
    /** The scope a bearer token gives a key (tokenSubject), or null for none. */
    private readonly callerOf: (authorization: string | undefined) => Promise<string | null>,
    private readonly logger: Logger,
  ) {}

  /**
   * Serves a keyed request: answers its kept answer again, refuses it (reused, in use), or runs
   * `next` holding the key, and keeps the answer (or lets the key go) before sending it.
   */
  async serve(req: Request, res: Response, keyed: KeyedRequest, next: () => void): Promise<void> {
    let outcome: ClaimOutcome;
    try {
      const caller = await this.callerOf(req.headers.authorization);
      outcome = await this.keys.claim({
        scope: caller ?? `anonymous ${keyed.route}`,
        key: keyed.key,
        fingerprint: keyed.fingerprint,
      });
    } catch (error) {
      keyed.fail(res, error);
      return;
    }
    switch (outcome.kind) {
      case 'answered':
        replay(res, outcome.answer);
        return;
      case 'reused':
        keyed.fail(res, new IdempotencyKeyError('IDEMPOTENCY_KEY_REUSED'));
        return;
      case 'in-use':
        keyed.fail(res, new IdempotencyKeyError('IDEMPOTENCY_KEY_IN_USE'));
        return;
      case 'claimed':
        this.run(res, outcome.claim, keyed, next);
    }
  }

  private run(res: Response, claim: KeyClaim, keyed: KeyedRequest, next: () => void): void {
    const scope = currentRequest();
    if (scope) {
      scope.journal = claim;
    }
    held.set(res, async (status, body) => {
      if (scope) {
        scope.journal = undefined;
        scope.deadline = Math.max(scope.deadline, performance.now() + KEEP_BUDGET_MS);
      }
      const keep = keyed.keeps(status, body);
      // An earlier attempt committed and lost its answer: this one is that outcome, rebuilt.
      if (keep && claim.rebuilding) {
        res.setHeader(REPLAYED_HEADER, 'true');
      }
      const answer = keep ? { status, headers: keptHeaders(res), body } : null;
      // Twice: a failure that lost the request's connection may meet another broken one first.
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        try {
          await this.keys.finish(claim, answer);
          return;
        } catch (error) {
          if (attempt === 2) {
            // The answer still goes out; the key is finished once the database is back (until
            // then, a retry meets it in use).
            this.logger.warn({ err: error, reqId: scope?.id }, 'idempotency key: answer not kept');
            this.finishLater(claim, answer, scope?.id);
          }
        }
      }
    });
    next();
  }

  /**
   * Keeps the answer (or lets the key go) once the database answers again, trying every
   * FINISH_RETRY_MS: a retry after an outage is then served within a second of the recovery, not
   * once the key is abandoned.
   */
  private finishLater(claim: KeyClaim, answer: KeptAnswer | null, reqId?: string): void {
    const until = performance.now() + FINISH_RETRY_FOR_MS;
    const retry = (): void => {
      if (this.stopped) {
        return;
      }
      const timer = setTimeout(() => {
        this.unfinished.delete(timer);
        this.keys.finish(claim, answer).then(
          () =>
            this.logger.info({ reqId }, 'idempotency key: finished after the database returned'),
          () => {
            if (performance.now() < until) {
              retry();
            }
          },
        );
      }, FINISH_RETRY_MS);
      timer.unref();
      this.unfinished.add(timer);
    };
    retry();
  }

  /** Stops retrying (the instance is closing: the keys are abandoned in time, or taken over). */
  stop(): void {
    this.stopped = true;
    this.unfinished.forEach((timer) => clearTimeout(timer));
    this.unfinished.clear();
  }
}
