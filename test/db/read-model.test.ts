import { ReferenceKind } from '@mikro-orm/core';
import { readModelColumns, tableOf } from '../../src/platform/sql/read-model';
import { openDatabase } from '../../src/platform/postgres/orm';
import { Follow } from '../../src/modules/follow/follow.entity';
import { Meeting } from '../../src/modules/meeting/meeting.entity';
import { Participant } from '../../src/modules/meeting/participants/participant.entity';
import { User } from '../../src/modules/user/user.entity';
import { createTestDatabase } from '../helpers/test-database';
import { dataModel } from '../../src/data-model';

describe('read models', () => {
  it('read every column the ORM maps for a client, under the names the ORM discovered', async () => {
    const target = await createTestDatabase();
    const database = await openDatabase(target.config, { model: dataModel, migrate: false });
    try {
      for (const entity of [User, Meeting, Participant, Follow]) {
        const meta = database.orm.getMetadata().get<object>(entity);
        const expected = meta.props
          .filter(
            (prop) =>
              !prop.hidden &&
              !prop.lazy &&
              (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.MANY_TO_ONE),
          )
          .map((prop): [string, string | undefined] => [prop.name, prop.fieldNames[0]]);
        const derived = [...readModelColumns(entity)].map(
          ([key, column]): [string, string | undefined] => [key, column.name],
        );
        expect(new Map(derived)).toEqual(new Map(expected));
        // Writes name the table the ORM discovered too.
        expect(tableOf(entity)).toBe(meta.tableName);
      }
    } finally {
      await database.close();
      await target.drop();
    }
  });

  it('never read the password hash', () => {
    expect([...readModelColumns(User).keys()]).not.toContain('passwordHash');
    expect([...readModelColumns(User).values()].map((column) => column.name)).not.toContain(
      'password_hash',
    );
  });

  it("never read a meeting's span, which the database keeps for overlap queries", () => {
    expect([...readModelColumns(Meeting).values()].map((column) => column.name)).not.toContain(
      'span',
    );
  });

  it('mark timestamps, and only them, to be answered as ISO 8601 text', () => {
    const timestamps = [...readModelColumns(Meeting)]
      .filter(([, column]) => column.timestamp)
      .map(([key]) => key);
    expect(timestamps.sort()).toEqual(['createdAt', 'recurrenceEndsAt', 'startTime', 'updatedAt']);
  });
});
