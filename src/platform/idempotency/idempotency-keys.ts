import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TransactionJournal } from '../observability/request-tracking';
import { IdempotencyKeyError } from '../shared/errors';
import { executeRows, type Row, selectRows } from '../sql/rows';
import { DEAD_AFTER_MS, seenRecently } from '../sql/heartbeats';

/**
 * The `idempotency_keys` table (migration 20261126191000): what a key's first request answered,
 * and while it runs, who runs it and what its transactions committed. The HTTP side is
 * src/platform/idempotency/idempotency.ts.
 *
 * What a row keeps of an answer (its body, its transactions' results) is sealed (SecretBox),
 * bound to the row's scope and key: those answers hold access tokens, calendar feed URLs and
 * webhook secrets for 24 hours. Rows kept before sealing began are read as they were written.
 */

/** Seals what rows keep of answers: the service's SecretBox (platform/auth/secret-box.ts). */
export interface AnswerSealer {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
  sealBytes(plain: Buffer, context: string): Buffer;
  openBytes(sealed: Buffer, context: string): Buffer;
  isSealedBytes(value: Buffer): boolean;
}

/** A finished answer, kept to be sent again to every retry. */
export interface KeptAnswer {
  status: number;
  /** The answer's own headers (Content-Type, Cache-Control), by lower-case name. */
  headers: Record<string, string>;
  body: Buffer;
}

/** A key as a request sends it: whose (`scope`), which, and what request it came with. */
export interface KeyRequest {
  /** `user <id>` for a caller with a valid token, else `anonymous <METHOD> <route>`. */
  scope: string;
  key: string;
  /** SHA-256 of what makes two requests the same one. */
  fingerprint: Buffer;
}

/** What claiming a key found. */
export type ClaimOutcome =
  /** The request runs, holding the key. */
  | { kind: 'claimed'; claim: KeyClaim }
  /** The first request finished: its answer, to send again. */
  | { kind: 'answered'; answer: KeptAnswer }
  /** The key came with another request. */
  | { kind: 'reused' }
  /** The first request is still running. */
  | { kind: 'in-use' };

const T = '"idempotency_keys"';

// Takes a new key, or one whose 24 hours are over (as if it were new).
const CLAIM =
  `insert into ${T} as k ("scope", "key", "fingerprint", "owner", "instance", "state", ` +
  `"expires_at") values (?, ?, ?, ?, ?, 'running', now() + ?::int * interval '1 millisecond') ` +
  `on conflict ("scope", "key") do update set "fingerprint" = excluded."fingerprint", ` +
  `"owner" = excluded."owner", "instance" = excluded."instance", "state" = 'running', ` +
  `"claimed_at" = now(), ` +
  `"expires_at" = excluded."expires_at", "results" = '{}', "status" = null, ` +
  `"headers" = null, "body" = null where k."expires_at" <= now() returning "owner"`;
// Abandoned: held past the bound, or by an instance that died (no longer seen, see heartbeats.ts)
// since it claimed the key.
const READ =
  `select "fingerprint" = ? as "same", "owner", "state", ` +
  `("claimed_at" < now() - ?::int * interval '1 millisecond' or ("instance" is not null ` +
  `and "claimed_at" < now() - interval '${DEAD_AFTER_MS} milliseconds' ` +
  `and not ${seenRecently('k."instance"')})) as "abandoned", ` +
  `"status", "headers", "body" from ${T} k where "scope" = ? and "key" = ?`;
// Only from the attempt that held it, in the state it was read in: of two retries, one wins.
const TAKE_OVER =
  `update ${T} set "owner" = ?, "instance" = ?, "claimed_at" = now(), ` +
  `"state" = case when "state" = 'unanswered' then 'committed' else "state" end ` +
  `where "scope" = ? and "key" = ? and "owner" = ? and "state" = ? returning "results"`;
// Run inside the write's own transaction, just before its COMMIT.
const MARK =
  `update ${T} set "state" = 'committed', ` +
  `"results" = "results" || jsonb_build_object(?::text, ?::text) ` +
  `where "scope" = ? and "key" = ? and "owner" = ? returning "state"`;
const KEEP =
  `update ${T} set "state" = 'done', "status" = ?, "headers" = ?::jsonb, "body" = ?, ` +
  `"results" = '{}' where "scope" = ? and "key" = ? and "owner" = ?`;
// A failure answered: the key is free again, unless a write committed (then the next retry
// rebuilds the answer from what it committed).
const RELEASE =
  `with "released" as (delete from ${T} where "scope" = ? and "key" = ? and "owner" = ? ` +
  `and "state" = 'running' returning "key") update ${T} set "state" = 'unanswered' ` +
  `where "scope" = ? and "key" = ? and "owner" = ? and "state" = 'committed'`;
const PRUNE =
  `delete from ${T} where ("scope", "key") in (select "scope", "key" from ${T} ` +
  `where "expires_at" < now() order by "expires_at" limit ?) returning "key"`;

/** What a sealed part of a row is bound to: its row, and which part it is. */
const sealedAs = (request: KeyRequest, part: string): string =>
  `idempotency ${part} ${request.scope} ${request.key}`;

const isTrue = (value: unknown): boolean => value === true || value === 't';

/** A bytea as the driver answers it: a Buffer, or PostgreSQL's hex text. */
function bytes(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) {
    return value;
  }
  const text = String(value ?? '');
  return text.startsWith('\\x') ? Buffer.from(text.slice(2), 'hex') : Buffer.from(text);
}

/** A jsonb as the driver answers it: parsed, or its text. */
function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

const DATE_TAG = '$date';

/** A transaction's result as JSON text; a Date keeps its type (`{"$date": …}`). */
function encode(result: unknown): string {
  return JSON.stringify({ result }, function (this: Record<string, unknown>, key, value) {
    const raw = this[key];
    return raw instanceof Date ? { [DATE_TAG]: raw.toISOString() } : (value as unknown);
  });
}

function decode(text: string): unknown {
  return (
    JSON.parse(text, (_key, value: unknown) => {
      const tagged = value as Record<string, unknown> | null;
      return tagged && typeof tagged === 'object' && typeof tagged[DATE_TAG] === 'string'
        ? new Date(tagged[DATE_TAG])
        : value;
    }) as { result: unknown }
  ).result;
}

/**
 * A key held by one attempt of its request: the journal its transactions join. Each transaction
 * the request commits marks the row `committed` and keeps its result (by its index in the
 * request), in the transaction itself; a retry after a lost answer finds those results and
 * answers them instead of running the transactions again.
 */
export class KeyClaim implements TransactionJournal {
  started = 0;

  constructor(
    readonly request: KeyRequest,
    /** This attempt's id: every write to the row checks it still holds the key. */
    readonly owner: string,
    private readonly results: Readonly<Record<string, string>>,
    private readonly box: AnswerSealer,
  ) {}

  /** Whether an earlier attempt committed something: this one rebuilds its answer. */
  get rebuilding(): boolean {
    return Object.keys(this.results).length > 0;
  }

  committed(index: number): { result: unknown } | undefined {
    const kept = this.results[String(index)];
    if (kept === undefined) {
      return undefined;
    }
    // Encoded results are JSON objects; a sealed one is `v1.…`.
    const text = kept.startsWith('{') ? kept : this.box.open(kept, this.resultContext(index));
    return { result: decode(text) };
  }

  async record(
    index: number,
    result: unknown,
    execute: (sql: string, params: unknown[]) => Promise<unknown>,
  ): Promise<void> {
    const { scope, key } = this.request;
    const rows = (await execute(MARK, [
      String(index),
      this.box.seal(encode(result), this.resultContext(index)),
      scope,
      key,
      this.owner,
    ])) as Row[];
    // The key was taken over (this attempt ran past the abandonment bound): the write is not made.
    if (rows.length === 0) {
      throw new IdempotencyKeyError('IDEMPOTENCY_KEY_IN_USE');
    }
  }

  private resultContext(index: number): string {
    return sealedAs(this.request, `result ${index}`);
  }
}

/** The keys: claimed at a request's start, kept or let go at its answer, pruned after 24 hours. */
export class IdempotencyKeys {
  constructor(
    private readonly em: EntityManager,
    /** Seals what rows keep of answers (the service's SecretBox). */
    private readonly box: AnswerSealer,
    private readonly limits: {
      /** How long a key is kept (24 h). */
      keepMs: number;
      /** After how long a key whose request has not finished counts as abandoned. */
      abandonAfterMs: number;
    },
    /** This instance's heartbeat id: its claims are abandoned once it is no longer seen. */
    private readonly instance: string,
  ) {}

  /**
   * Claims a key for a request: new (or expired), it is this request's; sent before with another
   * request, `reused`; finished, its answer; still held, `in-use`, unless abandoned (held past
   * the bound) or left `unanswered`, when this request takes it over.
   */
  async claim(request: KeyRequest): Promise<ClaimOutcome> {
    const { scope, key, fingerprint } = request;
    const owner = randomUUID();
    // A key let go between the two statements is claimed again; twice more at most.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const inserted = await executeRows(this.em, CLAIM, [
        scope,
        key,
        fingerprint,
        owner,
        this.instance,
        this.limits.keepMs,
      ]);
      if (inserted.length > 0) {
        return { kind: 'claimed', claim: new KeyClaim(request, owner, {}, this.box) };
      }
      const [row] = await selectRows(this.em, READ, [
        fingerprint,
        this.limits.abandonAfterMs,
        scope,
        key,
      ]);
      if (!row) {
        continue;
      }
      if (!isTrue(row['same'])) {
        return { kind: 'reused' };
      }
      const state = String(row['state']);
      if (state === 'done') {
        return {
          kind: 'answered',
          answer: {
            status: Number(row['status']),
            headers: (jsonValue(row['headers']) ?? {}) as Record<string, string>,
            body: this.openBody(request, bytes(row['body'])),
          },
        };
      }
      if (state !== 'unanswered' && !isTrue(row['abandoned'])) {
        return { kind: 'in-use' };
      }
      const [taken] = await executeRows(this.em, TAKE_OVER, [
        owner,
        this.instance,
        scope,
        key,
        row['owner'],
        state,
      ]);
      if (!taken) {
        return { kind: 'in-use' };
      }
      const results = (jsonValue(taken['results']) ?? {}) as Record<string, string>;
      return { kind: 'claimed', claim: new KeyClaim(request, owner, results, this.box) };
    }
    return { kind: 'in-use' };
  }

  /** Keeps the answer of a claim (`done`), or with none, lets the key go (see RELEASE). */
  async finish(claim: KeyClaim, answer: KeptAnswer | null): Promise<void> {
    const { scope, key } = claim.request;
    if (answer) {
      await executeRows(this.em, KEEP, [
        answer.status,
        JSON.stringify(answer.headers),
        this.box.sealBytes(answer.body, sealedAs(claim.request, 'body')),
        scope,
        key,
        claim.owner,
      ]);
    } else {
      await executeRows(this.em, RELEASE, [scope, key, claim.owner, scope, key, claim.owner]);
    }
  }

  private openBody(request: KeyRequest, kept: Buffer): Buffer {
    return this.box.isSealedBytes(kept)
      ? this.box.openBytes(kept, sealedAs(request, 'body'))
      : kept;
  }

  /** Deletes up to `limit` keys past their 24 hours; answers how many. */
  async prune(limit = 1000): Promise<number> {
    return (await executeRows(this.em, PRUNE, [limit])).length;
  }
}
