import { randomUUID } from 'node:crypto';
import pg, { type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';
import {
  MEETING_COLUMNS,
  type MeetingRow,
  PARTICIPANT_COLUMNS,
  type ParticipantRow,
  type Prefixed,
  selectList,
  USER_COLUMNS,
  type UserRow,
} from './records';

/**
 * The baseline's SQL: the fewest statements that answer each scenario, as named (prepared)
 * statements on a plain `pg` pool (but for the search, see UNPREPARED). Every statement sent is
 * counted.
 */

// Timestamps as the service writes them (ISO 8601, milliseconds, Z) without building a Date:
// the session runs in UTC, so PostgreSQL answers 'YYYY-MM-DD HH:MM:SS[.ffffff]+00'.
function timestamptz(text: string): string {
  if (text.length >= 22 && text.endsWith('+00') && text[10] === ' ') {
    const fraction = text[19] === '.' ? text.slice(20, text.length - 3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
  }
  return new Date(text).toISOString();
}

const TIMESTAMPTZ_OID = 1184;
const DATE_OID = 1082;

/** A pool whose sessions run in UTC, answering timestamps as ISO strings and dates as text. */
export function createPool(connectionString: string, max: number): pg.Pool {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === TIMESTAMPTZ_OID) {
        return timestamptz;
      }
      if (oid === DATE_OID) {
        return (text: string) => text;
      }
      return pg.types.getTypeParser(oid, format);
    },
  } as unknown as pg.CustomTypesConfig;
  return new pg.Pool({ connectionString, max, types, options: '-c TimeZone=UTC' });
}

const U = selectList('u', USER_COLUMNS);
const UJ = selectList('u', USER_COLUMNS, 'u_');
const M = selectList('m', MEETING_COLUMNS);
const PJ = selectList('p', PARTICIPANT_COLUMNS, 'p_');
const P = selectList('p', PARTICIPANT_COLUMNS);
const VISIBLE_MATCH =
  `u."is_active" = true and u."deleted_at" is null ` +
  `and (u."name" ilike $1 or u."account" ilike $1 or u."email" ilike $1)`;

const SQL = {
  user: `select ${U} from "users" u where u."id" = $1`,
  activeUser: `select ${U} from "users" u where u."id" = $1 and u."is_active" = true and u."deleted_at" is null`,
  meetingWithParticipants:
    `select ${M}, ${PJ}, ${UJ} from "meetings" m ` +
    `left join "participants" p on p."meeting_id" = m."id" ` +
    `left join "users" u on u."id" = p."user_id" ` +
    `where m."id" = $1 order by p."created_at" asc, p."id" asc`,
  searchPage:
    `select ${U} from "users" u where ${VISIBLE_MATCH} ` +
    `order by u."name" asc, u."id" asc limit $2 offset $3`,
  // The service's schema keeps per-gram totals (user_search_grams) for two or three characters.
  searchCount:
    `select case when char_length(lower($2)) between 2 and 3 ` +
    `then coalesce((select g."users" from "user_search_grams" g where g."gram" = lower($2)), 0) ` +
    `else (select count(*)::int from "users" u where ${VISIBLE_MATCH}) end as "n"`,
  requests:
    `select ${P} from "participants" p join "meetings" m on m."id" = p."meeting_id" ` +
    `where p."user_id" = $1 and p."status" = 'new' and m."status" in ('pending', 'confirmed') ` +
    `order by p."created_at" desc, p."id" desc limit $2 offset $3`,
  following:
    `select f."id", f."created_at", f."updated_at", f."following_id", ${UJ}, ` +
    `count(*) over ()::int as "total" from "follows" f join "users" u on u."id" = f."following_id" ` +
    `where f."follower_id" = $1 order by f."created_at" desc, f."id" desc limit $2 offset $3`,
  followingCount: `select count(*)::int as "n" from "follows" f where f."follower_id" = $1`,
  myMeetings:
    `with mine as (select ${M} from "meetings" m where m."owner_id" = $1 or m."id" in ` +
    `(select p."meeting_id" from "participants" p where p."user_id" = $1 and p."status" = 'accepted') ` +
    `order by m."start_time" desc, m."id" desc limit $2 offset $3) ` +
    `select mine.*, ${PJ}, ${UJ} from mine ` +
    `left join "participants" p on p."meeting_id" = mine."id" ` +
    `left join "users" u on u."id" = p."user_id" ` +
    `order by mine."start_time" desc, mine."id" desc, p."created_at" asc, p."id" asc`,
  lockForAdd:
    `select m."owner_id", m."status", ` +
    `exists(select 1 from "participants" p where p."meeting_id" = m."id" and p."user_id" = $2) as "viewer_in", ` +
    `exists(select 1 from "participants" p where p."meeting_id" = m."id" and p."user_id" = $3) as "target_in" ` +
    `from "meetings" m where m."id" = $1 for update of m`,
  insertParticipant:
    `insert into "participants" ("id", "created_at", "updated_at", "meeting_id", "user_id", "status") ` +
    `values ($1, $2, $3, $4, $5, $6)`,
  setMeetingStatus: `update "meetings" set "status" = $2, "updated_at" = $3 where "id" = $1`,
  lockForAnswer:
    `select m."owner_id", m."status", p."id" as "p_id", p."user_id" as "p_user_id", p."status" as "p_status" ` +
    `from "meetings" m join "participants" p on p."meeting_id" = m."id" ` +
    `where m."id" = $1 for update of m`,
  setParticipantStatus: `update "participants" set "status" = $2, "updated_at" = $3 where "id" = $1`,
} as const;

/**
 * Statements planned anew for every pattern: as named prepared statements PostgreSQL switches to
 * a generic plan after five runs, and for `ilike $1` that plan scans the whole trigram index
 * (the count of '%an%' takes 900 ms instead of 190 ms).
 */
const UNPREPARED = new Set<keyof typeof SQL>(['searchPage', 'searchCount']);

export type MeetingJoinRow = MeetingRow & Prefixed<'p_', ParticipantRow> & Prefixed<'u_', UserRow>;
export type FollowingRow = {
  id: string;
  created_at: string;
  updated_at: string;
  following_id: string;
  total: number;
} & Prefixed<'u_', UserRow>;

/** A refusal with the service's status and code. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const CLOSED = new Set(['cancelled', 'completed']);

/** The meeting status after its participants answered (src/modules/meeting/meeting.rules.ts). */
function statusAfterAnswers(
  current: string,
  ownerId: string,
  answers: readonly { userId: string; status: string }[],
): string {
  if (CLOSED.has(current)) {
    return current;
  }
  const guests = answers.filter((a) => a.userId !== ownerId);
  if (guests.length > 0 && guests.every((a) => a.status === 'declined')) {
    return 'cancelled';
  }
  if (answers.length > 0 && answers.every((a) => a.status === 'accepted')) {
    return 'confirmed';
  }
  return 'pending';
}

export class Store {
  /** SQL statements sent so far, BEGIN/COMMIT/ROLLBACK not counted (as the service counts). */
  statements = 0;

  constructor(private readonly pool: pg.Pool) {}

  private async run<R extends QueryResultRow>(
    name: keyof typeof SQL,
    values: unknown[],
    client: pg.Pool | PoolClient = this.pool,
  ): Promise<R[]> {
    this.statements += 1;
    const config: QueryConfig = UNPREPARED.has(name)
      ? { text: SQL[name], values }
      : { name, text: SQL[name], values };
    return (await client.query<R>(config)).rows;
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async user(id: string): Promise<UserRow | null> {
    return (await this.run<UserRow>('user', [id]))[0] ?? null;
  }

  meetingWithParticipants(meetingId: string): Promise<MeetingJoinRow[]> {
    return this.run<MeetingJoinRow>('meetingWithParticipants', [meetingId]);
  }

  /** A page of matches and the number of all matches (`text` is the trimmed query), side by side. */
  async search(
    text: string,
    pattern: string,
    skip: number,
    limit: number,
  ): Promise<{ rows: UserRow[]; count: number }> {
    const [rows, counted] = await Promise.all([
      this.run<UserRow>('searchPage', [pattern, limit, skip]),
      this.run<{ n: number }>('searchCount', [pattern, text]),
    ]);
    return { rows, count: counted[0]?.n ?? 0 };
  }

  requests(userId: string, skip: number, limit: number | null): Promise<ParticipantRow[]> {
    return this.run<ParticipantRow>('requests', [userId, limit, skip]);
  }

  async following(
    userId: string,
    skip: number,
    limit: number | null,
  ): Promise<{ rows: FollowingRow[]; count: number }> {
    const rows = await this.run<FollowingRow>('following', [userId, limit, skip]);
    if (rows[0]) {
      return { rows, count: rows[0].total };
    }
    // Past the end (or no follows at all): the window count has no row to ride on.
    const count =
      skip > 0 ? ((await this.run<{ n: number }>('followingCount', [userId]))[0]?.n ?? 0) : 0;
    return { rows, count };
  }

  myMeetings(userId: string, skip: number, limit: number | null): Promise<MeetingJoinRow[]> {
    return this.run<MeetingJoinRow>('myMeetings', [userId, limit, skip]);
  }

  /** The owner (or an admin) adds a user; answers the new participant and the user. */
  addParticipant(
    viewer: UserRow,
    meetingId: string,
    userId: string,
    status: string,
  ): Promise<{ participant: ParticipantRow; user: UserRow }> {
    const isAdmin = viewer.roles === 'admin' || viewer.is_superuser;
    return this.transaction(async (client) => {
      const [meeting] = await this.run<{
        owner_id: string;
        status: string;
        viewer_in: boolean;
        target_in: boolean;
      }>('lockForAdd', [meetingId, viewer.id, userId], client);
      if (!meeting || (!isAdmin && meeting.owner_id !== viewer.id && !meeting.viewer_in)) {
        throw new Refusal(404, 'MEETING_NOT_FOUND');
      }
      if (!isAdmin && meeting.owner_id !== viewer.id) {
        throw new Refusal(403, 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS');
      }
      if (CLOSED.has(meeting.status)) {
        throw new Refusal(409, 'MEETING_CLOSED');
      }
      const [user] = await this.run<UserRow>('activeUser', [userId], client);
      if (!user) {
        throw new Refusal(404, 'USER_NOT_FOUND');
      }
      if (meeting.target_in) {
        throw new Refusal(409, 'USER_ALREADY_A_PARTICIPANT');
      }
      const now = new Date().toISOString();
      const participant: ParticipantRow = {
        id: randomUUID(),
        created_at: now,
        updated_at: now,
        meeting_id: meetingId,
        user_id: userId,
        status,
      };
      try {
        await this.run(
          'insertParticipant',
          [participant.id, now, now, meetingId, userId, status],
          client,
        );
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new Refusal(409, 'USER_ALREADY_A_PARTICIPANT');
        }
        throw error;
      }
      if (meeting.status === 'confirmed' && status !== 'accepted') {
        await this.run('setMeetingStatus', [meetingId, 'pending', now], client);
      }
      return { participant, user };
    });
  }

  /** The viewer accepts; the meeting is confirmed once everybody has. Repeating changes nothing. */
  approve(viewer: UserRow, meetingId: string): Promise<void> {
    const isAdmin = viewer.roles === 'admin' || viewer.is_superuser;
    return this.transaction(async (client) => {
      const rows = await this.run<{
        owner_id: string;
        status: string;
        p_id: string;
        p_user_id: string;
        p_status: string;
      }>('lockForAnswer', [meetingId], client);
      const first = rows[0];
      const mine = rows.find((row) => row.p_user_id === viewer.id);
      if (!first || (!isAdmin && first.owner_id !== viewer.id && !mine)) {
        throw new Refusal(404, 'MEETING_NOT_FOUND');
      }
      if (!mine) {
        throw new Refusal(403, 'NOT_A_PARTICIPANT');
      }
      if (CLOSED.has(first.status)) {
        throw new Refusal(409, 'MEETING_CLOSED');
      }
      const now = new Date().toISOString();
      if (mine.p_status !== 'accepted') {
        await this.run('setParticipantStatus', [mine.p_id, 'accepted', now], client);
      }
      const answers = rows.map((row) => ({
        userId: row.p_user_id,
        status: row === mine ? 'accepted' : row.p_status,
      }));
      const status = statusAfterAnswers(first.status, first.owner_id, answers);
      if (status !== first.status) {
        await this.run('setMeetingStatus', [meetingId, status, now], client);
      }
    });
  }
}
