import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationFailedError } from '../shared/errors';
import { deferWrite } from '../sql/connections';
import { executeRows, type Row, selectRows } from '../sql/rows';

/**
 * The change log: every change that makes an event is one row of `change_log`, appended in the
 * transaction that makes the change (migration 20261126190000). Rows are read in the order of
 * (tx, position), and only once no running transaction can still add a row before them: `tx`
 * below the snapshot's xmin. A reader that trusted "every position after N" would skip a row
 * whose transaction took its position first and committed last (the outbox gap).
 */

/**
 * The channel that wakes readers once a transaction that logged changes commits (empty payload):
 * the log's trigger sends on it (migration 20261207210000), the notice listener listens on it.
 */
export const CHANGES_CHANNEL = 'change_log';

/**
 * One change as a write logs it: what happened (`kind`), to what, and where (ids only, never
 * content). The log knows no domain: the module that writes a change names its subject's type,
 * and the modules that read changes give the references their meaning.
 */
export interface ChangeEntry {
  kind: string;
  /** The type of what changed, in the words of the module that owns it. */
  subjectType: string;
  /** The id of what changed. */
  subjectId: string;
  /**
   * The aggregate the change belongs to, if any (the subject itself, or what holds it): readers
   * of one aggregate read by it (indexed with the log's order), and live events fan out on it.
   */
  scopeId: string | null;
  /** Another the change concerns besides its subject, if any (who it is addressed to). */
  relatedId?: string | null;
  /** Who made it, if recorded. */
  actorId?: string | null;
  /** When it was made, ISO 8601. */
  occurredAt: string;
}

/** Anything read from the log: where it sits there. */
export interface Placed {
  /** Opaque to clients: where the change sits in the log; resume after it. */
  cursor: string;
}

/** A change as read back from the log, with its place in it. */
export interface LoggedChange extends Required<ChangeEntry>, Placed {}

const CURSOR = /^(\d{1,20})\.(\d{1,19})$/;

/** A cursor's place: the writing transaction's id and the row's position. */
export function cursorPlace(cursor: string): { tx: string; position: string } | null {
  const match = CURSOR.exec(cursor);
  return match ? { tx: match[1] as string, position: match[2] as string } : null;
}

/** Orders two cursors: negative when `a` comes first. */
export function compareCursors(a: string, b: string): number {
  const [ta, pa] = a.split('.').map(BigInt) as [bigint, bigint];
  const [tb, pb] = b.split('.').map(BigInt) as [bigint, bigint];
  return ta === tb ? Number(pa - pb) : ta < tb ? -1 : 1;
}

/** The cursor before every row. */
export const LOG_START = '0.0';

/** A client's `after`, checked: a malformed one is a field error of `field`. */
export function clientCursor(field: string, after: string | null | undefined): string | null {
  if (after === null || after === undefined) {
    return null;
  }
  if (!cursorPlace(after)) {
    throw ValidationFailedError.of(field, 'INVALID_FORMAT');
  }
  return after;
}

/** The columns every read of the log answers, timestamps as the API writes them. */
export const COLUMNS =
  `c."tx"::text as "tx", c."position"::text as "position", c."kind", c."subject_type", ` +
  `c."subject_id", c."scope_id", c."related_id", c."actor_id", ` +
  `to_char(c."occurred_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "occurred_at"`;
/** Rows no running transaction can still precede. */
export const SETTLED = `c."tx" < pg_snapshot_xmin(pg_current_snapshot())`;
/** Rows after a cursor (two parameters: its tx and position). */
export const AFTER = `(c."tx", c."position") > (?::xid8, ?::bigint)`;
/** Rows up to a cursor, inclusive (two parameters). */
export const UP_TO = `(c."tx", c."position") <= (?::xid8, ?::bigint)`;
/** The log's order. */
export const IN_ORDER = `order by c."tx", c."position"`;
export const SELECT_CHANGES = `select ${COLUMNS} from "change_log" c`;

/** The two parameters of AFTER or UP_TO for `cursor`. */
export function placeParams(cursor: string): [string, string] {
  const place = cursorPlace(cursor);
  if (!place) {
    throw new Error(`not a cursor: ${cursor}`);
  }
  return [place.tx, place.position];
}

/** The cursor of a row that has the log's `tx` and `position` as text. */
export const cursorOfRow = (row: Row): string => `${String(row['tx'])}.${String(row['position'])}`;

/** A row of SELECT_CHANGES as a change. */
export function changeOf(row: Row): LoggedChange {
  return {
    cursor: cursorOfRow(row),
    kind: String(row['kind']),
    subjectType: String(row['subject_type']),
    subjectId: String(row['subject_id']),
    scopeId: (row['scope_id'] as string | null) ?? null,
    relatedId: (row['related_id'] as string | null) ?? null,
    actorId: (row['actor_id'] as string | null) ?? null,
    occurredAt: String(row['occurred_at']),
  };
}

/** The cursor at or below which the log was pruned: an `after` there has expired. */
export async function prunedUpTo(em: EntityManager): Promise<string> {
  const [row] = await selectRows(
    em,
    `select "tx"::text as "tx", "position"::text as "position" from "change_log_horizon"`,
  );
  return row ? cursorOfRow(row) : LOG_START;
}

/** Appends a list of changes (one JSON parameter) to the log. */
const APPEND =
  `insert into "change_log" ` +
  `("kind", "subject_type", "subject_id", "scope_id", "related_id", "actor_id", "occurred_at") ` +
  `select e."kind", e."subjectType", e."subjectId", e."scopeId", e."relatedId", e."actorId", ` +
  `e."occurredAt" from json_to_recordset(?::json) as e("kind" text, "subjectType" text, ` +
  `"subjectId" uuid, "scopeId" uuid, "relatedId" uuid, "actorId" uuid, "occurredAt" timestamptz)`;

/**
 * Appends changes to the log, in the caller's transaction. Each statement that appends also wakes
 * the readers once its transaction commits: a statement trigger on the log sends the notice on
 * CHANGES_CHANNEL (migrations 20261127060000, 20261207210000), and PostgreSQL sends a
 * transaction's identical notices once, and only if it commits.
 */
export class ChangeLogStore {
  /** Changes appended in an SQL transaction and not yet sent: they go with its next statement. */
  private held: ChangeEntry[] | undefined;

  constructor(private readonly em: EntityManager) {}

  /**
   * In an SQL transaction, the changes are held back and sent with the transaction's next
   * statement (or alone before its commit): a service that appends before its last write saves
   * the round trip of the append. Appends held together are one insert, so their rows keep the
   * order they were appended in (two inserts as expressions of one statement take their positions
   * in no set order). Elsewhere (the ORM's transaction), one statement now.
   */
  async append(entries: readonly ChangeEntry[]): Promise<void> {
    if (entries.length === 0) {
      return;
    }
    if (this.held) {
      this.held.push(...entries);
      return;
    }
    const held = [...entries];
    const deferred = deferWrite(this.em, () => {
      this.held = undefined;
      return { sql: APPEND, params: [JSON.stringify(held)] };
    });
    if (deferred) {
      this.held = held;
    } else {
      await executeRows(this.em, APPEND, [JSON.stringify(held)]);
    }
  }

  /**
   * Drops changes made before `before` (only settled ones) and moves the horizon up to the newest
   * one dropped; answers how many went.
   */
  async prune(before: Date): Promise<number> {
    const rows = await executeRows(
      this.em,
      `with gone as (delete from "change_log" c where c."occurred_at" < ? and ${SETTLED} ` +
        `returning c."tx", c."position"), newest as (select "tx", "position" from gone ` +
        `order by "tx" desc, "position" desc limit 1), moved as (update "change_log_horizon" h ` +
        `set "tx" = n."tx", "position" = n."position" from newest n ` +
        `where (n."tx", n."position") > (h."tx", h."position") returning 1) ` +
        `select (select count(*) from gone)::int as "pruned"`,
      [before],
    );
    return Number(rows[0]?.['pruned'] ?? 0);
  }
}
