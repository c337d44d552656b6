import { randomUUID } from 'node:crypto';
import { Client, type Notification } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { migrationsList } from '../../src/db/migrations';
import { dataModel } from '../../src/data-model';
import { meetingEntry, MeetingEventKind, noticeOf } from '../../src/modules/meeting';
import { changesAfter } from '../../src/modules/meeting-events/meeting-events.store';
import { userChange } from '../../src/modules/user';
import {
  CHANGES_CHANNEL,
  ChangeLogStore,
  type LoggedChange,
} from '../../src/platform/live/change-log';
import { DispatchCursor } from '../../src/platform/live/dispatch-cursor';
import { type Database, openDatabase } from '../../src/platform/postgres/orm';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

/*
 * Migration 20261207210000 makes the change log generic, and only expands it: instances of the
 * previous release keep running on the migrated database during a rolling upgrade (and in the
 * benchmark's A/B mode), so each release's writes are read right by the other's reads, and both
 * hear the wake-up. The tests run in order on one database: old rows, the migration, writes of
 * both releases, and the way back.
 */

/** The migration that makes the change log generic, and the one before it. */
const GENERIC = 'Migration20261207210000';
const before = migrationsList[migrationsList.findIndex(({ name }) => name === GENERIC) - 1]?.name;

/** The channel the previous release's readers listen on. */
const OLD_CHANNEL = 'meeting_events';

/** The previous release's append, as its ChangeLogStore sent it (one JSON parameter). */
const OLD_APPEND =
  `insert into "change_log" ` +
  `("kind", "meeting_id", "participant_id", "user_id", "actor_id", "occurred_at") ` +
  `select e."kind", e."meetingId", e."participantId", e."userId", e."actorId", e."occurredAt" ` +
  `from json_to_recordset($1::json) as e("kind" text, "meetingId" uuid, "participantId" uuid, ` +
  `"userId" uuid, "actorId" uuid, "occurredAt" timestamptz) ` +
  `returning "tx"::text || '.' || "position"::text as "cursor"`;

/** What the previous release's readers read of each change (its COLUMNS, less the timestamp). */
const OLD_READ =
  `select c."tx"::text || '.' || c."position"::text as "cursor", c."kind", c."meeting_id", ` +
  `c."participant_id", c."user_id", c."actor_id" from "change_log" c ` +
  `where (c."tx", c."position") > ($1::xid8, $2::bigint) order by c."tx", c."position"`;

/** A change as the previous release logged it (its ChangeEntry). */
interface OldEntry {
  kind: string;
  meetingId: string | null;
  participantId: string | null;
  userId: string | null;
  actorId: string | null;
  occurredAt: string;
}

/** What a settled read answers once it has `count` rows (others' transactions hold it back). */
async function settled<T>(read: () => Promise<T[]>, count: number): Promise<T[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows = await read();
    if (rows.length >= count || Date.now() > deadline) {
      return rows;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the change log made generic (migration 20261207210000)', () => {
  let target: TestDatabase;
  let database: Database;
  // The server itself (LISTEN needs a session of its own, past any pooler).
  let client: Client;
  let em: () => EntityManager;
  const [meeting, participant, guest, fan, star] = Array.from({ length: 5 }, randomUUID) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const occurredAt = '2026-12-07T21:00:00.000Z';
  // One of each shape the previous release logs: a meeting's, a participant's, a follow.
  const oldEntries: OldEntry[] = [
    { kind: 'UPDATED', meetingId: meeting, participantId: null, userId: null, actorId: null },
    {
      kind: 'PARTICIPANT_ADDED',
      meetingId: meeting,
      participantId: participant,
      userId: guest,
      actorId: null,
    },
    { kind: 'USER_FOLLOWED', meetingId: null, participantId: null, userId: star, actorId: fan },
  ].map((entry) => ({ ...entry, occurredAt }));
  // The same changes as this release logs them.
  const entries = [
    meetingEntry(meeting, { kind: MeetingEventKind.UPDATED }, occurredAt),
    meetingEntry(
      meeting,
      { kind: MeetingEventKind.PARTICIPANT_ADDED, participantId: participant, userId: guest },
      occurredAt,
    ),
    { ...userChange('USER_FOLLOWED', star, fan), occurredAt },
  ];
  // The changes as this release reads them back (the meeting module's notices of them are what
  // the previous release logged).
  const logged = entries.map((entry) => ({ relatedId: null, actorId: null, ...entry }));

  /** The newest cursor of the log. */
  const newest = async (): Promise<string> => {
    const { rows } = await client.query<{ cursor: string }>(
      `select "tx"::text || '.' || "position"::text as "cursor" from "change_log" ` +
        `order by "tx" desc, "position" desc limit 1`,
    );
    return rows[0]?.cursor ?? '0.0';
  };
  const oldRead = async (after: string) =>
    (await client.query(OLD_READ, after.split('.'))).rows as Array<Record<string, unknown>>;
  const oldAppend = async (logs: OldEntry[]): Promise<string[]> =>
    (await client.query<{ cursor: string }>(OLD_APPEND, [JSON.stringify(logs)])).rows.map(
      (row) => row.cursor,
    );
  /** Every change after `after`, as this release's dispatchers read them. */
  const dispatched = (after: string, count: number): Promise<LoggedChange[]> =>
    settled(() => new DispatchCursor(em(), 'mail_dispatch').changesAfter('all', after, 10), count);

  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
    const { config } = target;
    if (config.kind !== 'postgres') {
      throw new Error('test databases are made on a PostgreSQL server');
    }
    database = await openDatabase(config, { model: dataModel, migrate: false });
    em = () => database.orm.em.fork();
    client = new Client({ connectionString: config.directUrl ?? config.url });
    await client.connect();
    await database.orm.migrator.up({ to: before as string });
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    await database?.close();
    await target?.drop();
  });

  it('converts the rows in place, keeping their cursors and their old columns', async () => {
    // One of each shape the writes logged: a meeting's, a participant's, a user's, a follow.
    const inserted = await client.query<{ cursor: string }>(
      `insert into change_log (kind, meeting_id, participant_id, user_id, actor_id) values ` +
        `('UPDATED', $1, null, null, null), ('PARTICIPANT_ADDED', $1, $2, $3, null), ` +
        `('PROFILE_UPDATED', null, null, $5, $5), ('USER_FOLLOWED', null, null, $5, $4) ` +
        `returning tx::text || '.' || position::text as cursor`,
      [meeting, participant, guest, fan, star],
    );
    const old = await oldRead('0.0');
    await database.orm.migrator.up({ to: GENERIC });

    const rows = await client.query(
      `select tx::text || '.' || position::text as cursor, kind, subject_type, subject_id, ` +
        `scope_id, related_id, actor_id from change_log order by tx, position`,
    );
    const cursors = inserted.rows.map((row) => row.cursor);
    expect(rows.rows).toEqual([
      {
        cursor: cursors[0],
        kind: 'UPDATED',
        subject_type: 'meeting',
        subject_id: meeting,
        scope_id: meeting,
        related_id: null,
        actor_id: null,
      },
      {
        cursor: cursors[1],
        kind: 'PARTICIPANT_ADDED',
        subject_type: 'participant',
        subject_id: participant,
        scope_id: meeting,
        related_id: guest,
        actor_id: null,
      },
      {
        cursor: cursors[2],
        kind: 'PROFILE_UPDATED',
        subject_type: 'user',
        subject_id: star,
        scope_id: null,
        related_id: null,
        actor_id: star,
      },
      {
        cursor: cursors[3],
        kind: 'USER_FOLLOWED',
        subject_type: 'user',
        subject_id: star,
        scope_id: null,
        related_id: null,
        actor_id: fan,
      },
    ]);
    // The previous release still reads them as it wrote them.
    expect(await oldRead('0.0')).toEqual(old);
  });

  it("keeps the previous release's index of a meeting's changes beside the new one", async () => {
    const { rows } = await client.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes ` +
        `where indexname in ('change_log_meeting_idx', 'change_log_scope_idx') order by indexname`,
    );
    expect(rows).toEqual([
      {
        indexname: 'change_log_meeting_idx',
        indexdef: expect.stringContaining('(meeting_id, tx, "position")'),
      },
      {
        indexname: 'change_log_scope_idx',
        indexdef: expect.stringContaining('(scope_id, tx, "position")'),
      },
    ]);
  });

  it("reads the previous release's writes as this release writes the same changes", async () => {
    const after = await newest();
    const cursors = await oldAppend(oldEntries);

    const read = await dispatched(after, 3);
    expect(read).toEqual(logged.map((change, i) => ({ ...change, cursor: cursors[i] })));
    expect(read.map(noticeOf)).toEqual(
      oldEntries.map((notice, i) => ({ ...notice, cursor: cursors[i] })),
    );
    // A meeting's reads find its changes by their scope.
    const ofMeeting = await settled(() => changesAfter(em(), { meetingId: meeting }, after, 10), 2);
    expect(ofMeeting.map(({ cursor, kind }) => ({ cursor, kind }))).toEqual([
      { cursor: cursors[0], kind: 'UPDATED' },
      { cursor: cursors[1], kind: 'PARTICIPANT_ADDED' },
    ]);
  });

  it("fills the old columns of this release's writes as the previous release wrote them", async () => {
    const old = await newest();
    await oldAppend(oldEntries);
    const after = await newest();
    await new ChangeLogStore(em()).append(entries);

    const written = await oldRead(after);
    const byOld = await oldRead(old);
    const sansCursor = (rows: Array<Record<string, unknown>>) =>
      rows.map(({ cursor: _, ...row }) => row);
    expect(sansCursor(written)).toEqual(sansCursor(byOld.slice(0, 3)));
    expect(sansCursor(written)).toEqual([
      { kind: 'UPDATED', meeting_id: meeting, participant_id: null, user_id: null, actor_id: null },
      {
        kind: 'PARTICIPANT_ADDED',
        meeting_id: meeting,
        participant_id: participant,
        user_id: guest,
        actor_id: null,
      },
      {
        kind: 'USER_FOLLOWED',
        meeting_id: null,
        participant_id: null,
        user_id: star,
        actor_id: fan,
      },
    ]);
    // And they read back as written.
    expect(await dispatched(after, 3)).toEqual(
      logged.map((change) => ({ ...change, cursor: expect.any(String) })),
    );
  });

  it("wakes the readers of both releases on a commit of either's", async () => {
    await client.query(`listen ${CHANGES_CHANNEL}`);
    await client.query(`listen ${OLD_CHANNEL}`);
    const heard: string[] = [];
    const hear = (message: Notification) => heard.push(message.channel);
    client.on('notification', hear);
    const both = async (write: () => Promise<unknown>): Promise<string[]> => {
      heard.length = 0;
      await write();
      const deadline = Date.now() + 5_000;
      while (heard.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return [...heard].sort();
    };
    try {
      expect(await both(() => oldAppend(oldEntries.slice(0, 1)))).toEqual(
        [CHANGES_CHANNEL, OLD_CHANNEL].sort(),
      );
      expect(await both(() => new ChangeLogStore(em()).append(entries.slice(0, 1)))).toEqual(
        [CHANGES_CHANNEL, OLD_CHANNEL].sort(),
      );
    } finally {
      client.off('notification', hear);
      await client.query('unlisten *');
    }
  });

  it('migrates back to the old shape, with every row as the previous release reads it', async () => {
    const old = await oldRead('0.0');
    await database.orm.migrator.down({ to: before as string });
    expect(await oldRead('0.0')).toEqual(old);
    const { rows } = await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_name = 'change_log' ` +
        `order by ordinal_position`,
    );
    expect(rows.map((row) => row.column_name)).toEqual([
      'position',
      'tx',
      'kind',
      'meeting_id',
      'participant_id',
      'user_id',
      'occurred_at',
      'actor_id',
    ]);
    // The previous release writes as it did, and wakes its readers.
    await client.query(`listen ${OLD_CHANNEL}`);
    const heard = new Promise<string>((resolve) =>
      client.once('notification', (message) => resolve(message.channel)),
    );
    await oldAppend(oldEntries);
    expect(await heard).toBe(OLD_CHANNEL);
  });
});
