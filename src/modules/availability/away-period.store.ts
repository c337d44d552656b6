import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../platform/shared/errors';
import {
  insertOf,
  type ReadModel,
  readerOf,
  tableOf,
  updateOf,
} from '../../platform/sql/read-model';
import { arrayLiteral, executeRows, readAll, type Row, selectRows } from '../../platform/sql/rows';
import { AWAY_LIMITS, AwayPeriod } from './away-period.entity';

/** An away period as queries and mutations answer it. */
export type AwayPeriodRecord = ReadModel<AwayPeriod>;

/** What a new away period is made of. */
export type NewAwayPeriod = Pick<
  AwayPeriodRecord,
  'userId' | 'start' | 'end' | 'kind' | 'title' | 'declineInvitations'
>;

/** What its owner may change of an away period. */
export type AwayPeriodChanges = Partial<
  Pick<AwayPeriodRecord, 'start' | 'end' | 'kind' | 'title' | 'declineInvitations'>
>;

export const awayPeriodNotFound = (): NotFoundError =>
  new NotFoundError('AWAY_PERIOD_NOT_FOUND', 'Away period not found');

const periods = readerOf(AwayPeriod);
const T = `"${tableOf(AwayPeriod)}"`;
const RETURNING = `returning ${periods.select(T)}`;
const OWN = `select ${periods.select('a')} from ${T} a where a."id" = ? and a."user_id" = ?`;
const DELETE_OWN = `delete from ${T} where "id" = ? and "user_id" = ? ${RETURNING}`;
const OVERLAPPING = `a."end_time" > ? and a."start_time" < ?`;
const MINE =
  `select ${periods.select('a')} from ${T} a where a."user_id" = ? and ${OVERLAPPING} ` +
  `order by a."start_time", a."id" limit ${AWAY_LIMITS.listed}`;
const OF_USERS =
  `select ${periods.select('a')} from ${T} a where a."user_id" = any(?::uuid[]) and ` +
  `${OVERLAPPING} order by a."start_time", a."id"`;

/** Every read and write of away periods. */
export class AwayPeriodStore {
  constructor(private readonly em: EntityManager) {}

  private one(rows: readonly Row[]): AwayPeriodRecord {
    const record = rows[0] ? periods.read(rows[0]) : null;
    if (!record) {
      throw awayPeriodNotFound();
    }
    return record;
  }

  async insert(period: NewAwayPeriod): Promise<AwayPeriodRecord> {
    const now = new Date().toISOString();
    const record: AwayPeriodRecord = {
      id: randomUUID(),
      createdAt: now,
      updatedAt: now,
      ...period,
    };
    const { sql, params } = insertOf(AwayPeriod, record);
    return this.one(await executeRows(this.em, `${sql} ${RETURNING}`, params));
  }

  /** One of the user's periods; AWAY_PERIOD_NOT_FOUND for any other (whoever's it is). */
  async own(userId: string, id: string): Promise<AwayPeriodRecord> {
    return this.one(await selectRows(this.em, OWN, [id, userId]));
  }

  /** Changes one of the user's periods (AWAY_PERIOD_NOT_FOUND for any other). */
  async update(userId: string, id: string, changes: AwayPeriodChanges): Promise<AwayPeriodRecord> {
    const { sql, params } = updateOf(
      AwayPeriod,
      { ...changes, updatedAt: new Date().toISOString() },
      { sql: '"id" = ? and "user_id" = ?', params: [id, userId] },
    );
    return this.one(await executeRows(this.em, `${sql} ${RETURNING}`, params));
  }

  /** Deletes one of the user's periods, answering it (AWAY_PERIOD_NOT_FOUND for any other). */
  async remove(userId: string, id: string): Promise<AwayPeriodRecord> {
    return this.one(await executeRows(this.em, DELETE_OWN, [id, userId]));
  }

  /** The user's periods that overlap [from, to), earliest first (at most AWAY_LIMITS.listed). */
  async mine(userId: string, from: Date, to: Date): Promise<AwayPeriodRecord[]> {
    const rows = await selectRows(this.em, MINE, [userId, from.toISOString(), to.toISOString()]);
    return readAll(periods, rows);
  }

  /** The periods of these users that overlap [from, to), in one statement. */
  async ofUsers(userIds: readonly string[], from: Date, to: Date): Promise<AwayPeriodRecord[]> {
    if (userIds.length === 0) {
      return [];
    }
    const rows = await selectRows(this.em, OF_USERS, [
      arrayLiteral(userIds),
      from.toISOString(),
      to.toISOString(),
    ]);
    return readAll(periods, rows);
  }
}
