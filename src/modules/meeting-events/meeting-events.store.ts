import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AFTER,
  changeOf,
  compareCursors,
  IN_ORDER,
  placeParams,
  prunedUpTo,
  SELECT_CHANGES,
  SETTLED,
  UP_TO,
} from '../../platform/live/change-log';
import { CursorExpiredError } from '../../platform/shared/errors';
import { arrayLiteral, selectRows } from '../../platform/sql/rows';
import { isAdmin, type UserRecord } from '../user';
import { type ChangeNotice, MEETING_SUBJECT_TYPES, noticeOf } from '../meeting';

/**
 * Reads of the change log for one caller: a meeting's changes, or every change of the meetings
 * the caller may see now (owner, participant, or any for an admin), after a cursor. What the
 * caller may see of each is decided when it is delivered, as for live events. A meeting's
 * changes are those scoped to it (the log's scope, indexed with its order; see MEETING_SUBJECTS).
 */

/** Refuses a cursor older than what the log still holds (CURSOR_EXPIRED). */
export async function requireKept(em: EntityManager, after: string): Promise<void> {
  if (compareCursors(after, await prunedUpTo(em)) < 0) {
    throw new CursorExpiredError();
  }
}

const MEETING_TYPES = arrayLiteral(MEETING_SUBJECT_TYPES);

/** Meetings `viewer` may see, as SQL over the log's `c` (its parameters follow). */
function seenBy(viewer: UserRecord): { sql: string; params: unknown[] } {
  if (isAdmin(viewer)) {
    return { sql: 'c."subject_type" = any(?::text[])', params: [MEETING_TYPES] };
  }
  return {
    sql:
      `(c."scope_id" in (select m."id" from "meetings" m where m."owner_id" = ?) or ` +
      `c."scope_id" in (select p."meeting_id" from "participants" p where p."user_id" = ?))`,
    params: [viewer.id, viewer.id],
  };
}

/**
 * Changes after `after`, up to `upTo` (what this instance has delivered live) or, without it, up
 * to what is settled; of one meeting, or of every meeting the caller sees. At most `limit`.
 */
export async function changesAfter(
  em: EntityManager,
  scope: { meetingId: string } | { viewer: UserRecord },
  after: string,
  limit: number,
  upTo: string | null = null,
): Promise<ChangeNotice[]> {
  const where = [AFTER];
  const params: unknown[] = [...placeParams(after)];
  if (upTo === null) {
    where.push(SETTLED);
  } else {
    where.push(UP_TO);
    params.push(...placeParams(upTo));
  }
  if ('meetingId' in scope) {
    where.push('c."scope_id" = ?');
    params.push(scope.meetingId);
  } else {
    const seen = seenBy(scope.viewer);
    where.push(seen.sql);
    params.push(...seen.params);
  }
  params.push(limit);
  const rows = await selectRows(
    em,
    `${SELECT_CHANGES} where ${where.join(' and ')} ${IN_ORDER} limit ?`,
    params,
    // The caller's filter changes the plan's parameters only; the text is one of four.
    { prepared: true },
  );
  return rows.map((row) => noticeOf(changeOf(row)));
}

/** How many changes of the meetings `viewer` sees follow `after` (settled ones). */
export async function countChangesAfter(
  em: EntityManager,
  viewer: UserRecord,
  after: string,
): Promise<number> {
  const seen = seenBy(viewer);
  const rows = await selectRows(
    em,
    `select count(*)::int as "n" from "change_log" c where ${AFTER} and ${SETTLED} and ${seen.sql}`,
    [...placeParams(after), ...seen.params],
  );
  return Number(rows[0]?.['n'] ?? 0);
}
