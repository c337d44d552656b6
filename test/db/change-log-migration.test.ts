import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { migrationsList } from '../../src/db/migrations';
import { dataModel } from '../../src/data-model';
import { CHANGES_CHANNEL } from '../../src/platform/live/change-log';
import { openDatabase } from '../../src/platform/postgres/orm';
import { createTestDatabase } from '../helpers/test-database';

/** The migration that makes the change log generic, and the one before it. */
const GENERIC = 'Migration20261207210000';
const before = migrationsList[migrationsList.findIndex(({ name }) => name === GENERIC) - 1]?.name;

describe('the change log made generic (migration 20261207210000)', () => {
  it('converts the rows in place, keeping their cursors, its index and its wake-up', async () => {
    const target = await createTestDatabase({ empty: true });
    const { config } = target;
    if (config.kind !== 'postgres') {
      throw new Error('test databases are made on a PostgreSQL server');
    }
    const database = await openDatabase(config, { model: dataModel, migrate: false });
    // The server itself (LISTEN needs a session of its own, past any pooler).
    const client = new Client({ connectionString: config.directUrl ?? config.url });
    try {
      const { migrator } = database.orm;
      await migrator.up({ to: before as string });
      await client.connect();
      const [meeting, participant, guest, fan, star] = Array.from({ length: 5 }, randomUUID);
      // One of each shape the writes logged: a meeting's, a participant's, a user's, a follow.
      const inserted = await client.query<{ cursor: string }>(
        `insert into change_log (kind, meeting_id, participant_id, user_id, actor_id) values ` +
          `('UPDATED', $1, null, null, null), ('PARTICIPANT_ADDED', $1, $2, $3, null), ` +
          `('PROFILE_UPDATED', null, null, $5, $5), ('USER_FOLLOWED', null, null, $5, $4) ` +
          `returning tx::text || '.' || position::text as cursor`,
        [meeting, participant, guest, fan, star],
      );
      await migrator.up({ to: GENERIC });

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
      const index = await client.query<{ indexdef: string }>(
        `select indexdef from pg_indexes where indexname = 'change_log_scope_idx'`,
      );
      expect(index.rows[0]?.indexdef).toContain('(scope_id, tx, "position")');

      // An append wakes the readers on the one channel they listen on.
      await client.query(`listen ${CHANGES_CHANNEL}`);
      const heard = new Promise<string>((resolve) =>
        client.once('notification', (message) => resolve(message.channel)),
      );
      await client.query(
        `insert into change_log (kind, subject_type, subject_id, scope_id) ` +
          `values ('UPDATED', 'meeting', $1, $1)`,
        [meeting],
      );
      expect(await heard).toBe(CHANGES_CHANNEL);

      // And back: the rows as they were.
      await migrator.down({ to: before as string });
      const back = await client.query(
        `select kind, meeting_id, participant_id, user_id, actor_id from change_log ` +
          `order by tx, position limit 4`,
      );
      expect(back.rows).toEqual([
        {
          kind: 'UPDATED',
          meeting_id: meeting,
          participant_id: null,
          user_id: null,
          actor_id: null,
        },
        {
          kind: 'PARTICIPANT_ADDED',
          meeting_id: meeting,
          participant_id: participant,
          user_id: guest,
          actor_id: null,
        },
        {
          kind: 'PROFILE_UPDATED',
          meeting_id: null,
          participant_id: null,
          user_id: star,
          actor_id: star,
        },
        {
          kind: 'USER_FOLLOWED',
          meeting_id: null,
          participant_id: null,
          user_id: star,
          actor_id: fan,
        },
      ]);
    } finally {
      await client.end().catch(() => undefined);
      await database.close();
      await target.drop();
    }
  });
});
