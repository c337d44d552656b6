import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, executeRows, selectRows } from '../sql/rows';
import {
  AFTER,
  changeOf,
  cursorOfRow,
  IN_ORDER,
  type LoggedChange,
  placeParams,
  SELECT_CHANGES,
  SETTLED,
} from './change-log';

/** Which changes a dispatcher reads: every one, or only those whose subject is of these types. */
export type DispatchedChanges = 'all' | { subjectTypes: readonly string[] };

const ALL_CHANGES = `${SELECT_CHANGES} where ${AFTER} and ${SETTLED} ${IN_ORDER} limit ?`;
// One text whatever the types (an array parameter), so it stays prepared.
const CHANGES_OF_TYPES =
  `${SELECT_CHANGES} where ${AFTER} and ${SETTLED} and c."subject_type" = any(?::text[]) ` +
  `${IN_ORDER} limit ?`;

/**
 * A dispatcher's place in the change log: one row (`id` 1) of its own table, with the cursor
 * (`tx`, `position`) of the last change it acted on and `queued_up_to`, the run time of the last
 * job it queued. A dispatcher reads past the cursor, then, in one transaction, moves it and
 * writes what it made of the batch: whichever instance runs it, each change is acted on once.
 */
export class DispatchCursor {
  private readonly read: string;
  // Compare-and-set: the first statement of the dispatch's transaction, so its row lock is held
  // only while what it made is written. It also answers when the batch's jobs run: one
  // microsecond apart, after the last batch's, ending just before now.
  private readonly move: string;

  constructor(
    private readonly em: EntityManager,
    table: string,
  ) {
    const t = `"${table}"`;
    this.read = `select "tx"::text as "tx", "position"::text as "position" from ${t}`;
    this.move =
      `update ${t} set "tx" = ?::xid8, "position" = ?::bigint, "queued_up_to" = ` +
      `greatest("queued_up_to" + interval '1 microsecond', now() - ?::int * interval ` +
      `'1 microsecond') + ?::int * interval '1 microsecond' ` +
      `where "id" = 1 and ("tx", "position") = (?::xid8, ?::bigint) ` +
      `returning ("queued_up_to" - ?::int * interval '1 microsecond')::text as "first"`;
  }

  /** The cursor of the last change the dispatcher acted on. */
  async upTo(): Promise<string> {
    const [row] = await selectRows(this.em, this.read);
    if (!row) {
      throw new Error(`the dispatcher's table has no row: ${this.read}`);
    }
    return cursorOfRow(row);
  }

  /**
   * Moves the dispatcher from `from` to `to`, making room for `jobs` jobs: the run time of the
   * first of them (PostgreSQL's text of it, to the microsecond), or null when another dispatcher
   * moved it first.
   */
  async moveTo(from: string, to: string, jobs: number): Promise<string | null> {
    const last = Math.max(jobs - 1, 0);
    const [row] = await executeRows(this.em, this.move, [
      ...placeParams(to),
      jobs,
      last,
      ...placeParams(from),
      last,
    ]);
    return row ? String(row['first']) : null;
  }

  /** Changes after `after` that no running transaction can still precede, in order. */
  async changesAfter(
    which: DispatchedChanges,
    after: string,
    limit: number,
  ): Promise<LoggedChange[]> {
    const rows =
      which === 'all'
        ? await selectRows(this.em, ALL_CHANGES, [...placeParams(after), limit])
        : await selectRows(this.em, CHANGES_OF_TYPES, [
            ...placeParams(after),
            arrayLiteral(which.subjectTypes),
            limit,
          ]);
    return rows.map(changeOf);
  }
}
