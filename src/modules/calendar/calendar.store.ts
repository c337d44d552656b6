import type { EntityManager } from '@mikro-orm/postgresql';
import { executeRows, readAll, selectRows } from '../../platform/sql/rows';
import { insertOf, type ReadModel, readerOf, toReadModel } from '../../platform/sql/read-model';
import { Meeting, type MeetingRecord } from '../meeting';
import { User, visibleUserSql } from '../user';
import { MEETING_RESOURCES, RESOURCES } from '../resource';
import { CalendarFeed } from './calendar.entity';
import { SHOWN_USER_FIELDS } from './ics';

/** A calendar feed as reads answer it. */
export type CalendarFeedRecord = ReadModel<CalendarFeed>;

const feeds = readerOf(CalendarFeed);
const meetings = readerOf(Meeting);
const users = readerOf(User);

const OF_USER = `select ${feeds.select('f')} from "calendar_feeds" f where f."user_id" = ?`;
// A feed of a user who may no longer sign in (deactivated, deleted) answers nothing.
const BY_SECRET =
  `select ${feeds.select('f')} from "calendar_feeds" f join "users" u on u."id" = f."user_id" ` +
  `and ${visibleUserSql('u')} where f."secret_hash" = ?`;
/**
 * The ids of the meetings the user `user` (an SQL expression) owns or was invited to, whatever
 * their answer: a union, so that each branch reads its own index (`owner_id = ? or id in (…)`
 * made PostgreSQL read every meeting).
 */
const feedMeetingIds = (user: string): string =>
  `select o."id" from "meetings" o where o."owner_id" = ${user} ` +
  `union select p."meeting_id" from "participants" p where p."user_id" = ${user}`;

/**
 * The `columns` of the meetings in the feed of the user `user` that have not ended before `since`
 * (the first `?`; a series: whose last occurrence has not), by the span the database keeps
 * (Migration20261126220000); the latest starts first, at most the second `?`.
 */
const feedMeetings = (user: string, columns: string): string =>
  `select ${columns} from "meetings" m where m."id" in (${feedMeetingIds(user)}) ` +
  `and m."span" && tstzrange(?::timestamptz, null) ` +
  `order by m."start_time" desc, m."id" desc limit ?`;

/** Whether a meeting books any room: only those have their rooms read (a feed's rarely do). */
const BOOKS_ROOMS = `exists (select 1 from "${MEETING_RESOURCES}" mr where mr."meeting_id" = m."id") as "books_rooms"`;
const FEED_MEETINGS = feedMeetings('?', `${meetings.select('m')}, ${BOOKS_ROOMS}`);

/**
 * One text of the rows `from` reads: each row's 64-bit hash, by its type's own hash functions
 * (text of the rows cost 1.5 times as much), in the order of their ids. `row`: the alias, or a
 * row of some of its columns. Every column's type needs an extended hash function (`jsonb`, not
 * `json`): the feed tests read this statement.
 */
const rowHashes = (alias: string, from: string, row = alias): string =>
  `(select string_agg(hash_record_extended(${row}, 0)::text, ',' order by ${alias}."id") ${from})`;

/** What the documents show of a user, and whether they are visible, as one row. */
const shownUser = `(${[
  'u."id"',
  ...SHOWN_USER_FIELDS.map((field) => users.column(field, 'u')),
  visibleUserSql('u'),
].join(', ')})`;

const feedUser = `(select ${feeds.output('userId')} from "feed")`;

/**
 * BY_SECRET with a fingerprint of everything the feed's document is made of, in one statement:
 * the whole rows of its meetings (as FEED_MEETINGS selects them, by the same `since` and limit),
 * of their participants, changed occurrences and rooms, and what the document shows of the users among
 * them, their owners and the feed's user. Any change of these, or a meeting entering or leaving
 * the window, changes it.
 */
const BY_SECRET_WITH_FINGERPRINT =
  `with "feed" as (${BY_SECRET}), ` +
  `"shown" as materialized (${feedMeetings(feedUser, 'm.*')}), ` +
  `"attending" as materialized ` +
  `(select p.* from "shown" s join "participants" p on p."meeting_id" = s."id") ` +
  `select "feed".*, md5(concat_ws('|', ${[
    rowHashes('s', 'from "shown" s'),
    rowHashes('a', 'from "attending" a'),
    rowHashes('c', 'from "shown" s join "meeting_occurrence_changes" c on c."meeting_id" = s."id"'),
    // The rooms a meeting books show by name: a renamed one changes the documents too.
    rowHashes(
      'r',
      `from "shown" s join "${MEETING_RESOURCES}" mr on mr."meeting_id" = s."id" join ${RESOURCES} r ` +
        'on r."id" = mr."resource_id"',
      '(r."id", r."name")',
    ),
    rowHashes(
      'u',
      `from "users" u where u."id" in (select "user_id" from "attending" ` +
        `union select "owner_id" from "shown" union ${feedUser})`,
      shownUser,
    ),
  ].join(', ')})) as "fingerprint" from "feed"`;

/** Every read and write of calendar feeds, and the meetings a feed holds. */
export class CalendarStore {
  constructor(private readonly em: EntityManager) {}

  /** A user's feed, or null. */
  async feedOf(userId: string): Promise<CalendarFeedRecord | null> {
    const [row] = await selectRows(this.em, OF_USER, [userId]);
    return row ? feeds.read(row) : null;
  }

  /**
   * The feed whose secret hashes to `secretHash`, if its user is still visible, with the
   * fingerprint of its document's data (see BY_SECRET_WITH_FINGERPRINT) for `since` and `limit`
   * as meetingsOf takes them.
   */
  async feedBySecretHash(
    secretHash: string,
    since: Date,
    limit: number,
  ): Promise<{ feed: CalendarFeedRecord; fingerprint: string } | null> {
    const [row] = await selectRows(this.em, BY_SECRET_WITH_FINGERPRINT, [
      secretHash,
      since.toISOString(),
      limit,
    ]);
    const feed = row ? feeds.read(row) : null;
    return row && feed ? { feed, fingerprint: String(row['fingerprint']) } : null;
  }

  /**
   * Gives the user a feed of the secret hashing to `secretHash`: a new one, replacing the one
   * they had (which stops answering), created now.
   */
  async replaceFeed(userId: string, secretHash: string): Promise<CalendarFeedRecord> {
    const feed = toReadModel(Object.assign(new CalendarFeed(), { userId, secretHash }));
    const { sql, params } = insertOf(CalendarFeed, feed);
    const [row] = await executeRows(
      this.em,
      `${sql} on conflict ("user_id") do update set "id" = excluded."id", ` +
        `"secret_hash" = excluded."secret_hash", "created_at" = excluded."created_at", ` +
        `"updated_at" = excluded."updated_at" returning ${feeds.select('"calendar_feeds"')}`,
      params,
    );
    return row ? (feeds.read(row) ?? feed) : feed;
  }

  /** Ends the user's feed; whether they had one. */
  async removeFeed(userId: string): Promise<boolean> {
    const rows = await executeRows(
      this.em,
      `delete from "calendar_feeds" where "user_id" = ? returning "id"`,
      [userId],
    );
    return rows.length > 0;
  }

  /**
   * The meetings of a user's feed (see FEED_MEETINGS; at most `limit`), and which of them book
   * rooms or other resources.
   */
  async meetingsOf(
    userId: string,
    since: Date,
    limit: number,
  ): Promise<{ meetings: MeetingRecord[]; bookingRooms: Set<string> }> {
    const rows = await selectRows(this.em, FEED_MEETINGS, [
      userId,
      userId,
      since.toISOString(),
      limit,
    ]);
    const found = readAll(meetings, rows);
    return {
      meetings: found,
      bookingRooms: new Set(
        found
          .filter((_, i) => [true, 't'].includes(rows[i]?.['books_rooms'] as string))
          .map((m) => m.id),
      ),
    };
  }
}
