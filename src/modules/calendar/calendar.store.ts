import type { EntityManager } from '@mikro-orm/postgresql';
import { executeRows, readAll, selectRows } from '../../platform/sql/rows';
import { insertOf, type ReadModel, readerOf, toReadModel } from '../../platform/sql/read-model';
import { Meeting } from '../meeting/meeting.entity';
import type { MeetingRecord } from '../meeting/meeting.store';
import { visibleUserSql } from '../user/user.rules';
import { CalendarFeed } from './calendar.entity';

/** A calendar feed as reads answer it. */
export type CalendarFeedRecord = ReadModel<CalendarFeed>;

const feeds = readerOf(CalendarFeed);
const meetings = readerOf(Meeting);

const OF_USER = `select ${feeds.select('f')} from "calendar_feeds" f where f."user_id" = ?`;
// A feed of a user who may no longer sign in (deactivated, deleted) answers nothing.
const BY_SECRET =
  `select ${feeds.select('f')} from "calendar_feeds" f join "users" u on u."id" = f."user_id" ` +
  `and ${visibleUserSql('u')} where f."secret_hash" = ?`;
/**
 * The meetings a user owns or was invited to (whatever their answer) that have not ended before
 * `since` (a series: whose last occurrence has not), by the span the database keeps
 * (Migration20261126220000); the latest starts first.
 */
const FEED_MEETINGS =
  `select ${meetings.select('m')} from "meetings" m where (m."owner_id" = ? or m."id" in ` +
  `(select p."meeting_id" from "participants" p where p."user_id" = ?)) ` +
  `and m."span" && tstzrange(?::timestamptz, null) ` +
  `order by m."start_time" desc, m."id" desc limit ?`;

/** Every read and write of calendar feeds, and the meetings a feed holds. */
export class CalendarStore {
  constructor(private readonly em: EntityManager) {}

  /** A user's feed, or null. */
  async feedOf(userId: string): Promise<CalendarFeedRecord | null> {
    const [row] = await selectRows(this.em, OF_USER, [userId]);
    return row ? feeds.read(row) : null;
  }

  /** The feed whose secret hashes to `secretHash`, if its user is still visible. */
  async feedBySecretHash(secretHash: string): Promise<CalendarFeedRecord | null> {
    const [row] = await selectRows(this.em, BY_SECRET, [secretHash]);
    return row ? feeds.read(row) : null;
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

  /** The meetings of a user's feed: see FEED_MEETINGS; at most `limit`. */
  async meetingsOf(userId: string, since: Date, limit: number): Promise<MeetingRecord[]> {
    const rows = await selectRows(this.em, FEED_MEETINGS, [
      userId,
      userId,
      since.toISOString(),
      limit,
    ]);
    return readAll(meetings, rows);
  }
}
