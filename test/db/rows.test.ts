import { type Database, openDatabase } from '../../src/db/orm';
import { executeRows, selectRows } from '../../src/db/rows';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

// selectRows answers plain rows, column alias → value, whichever way it reached the database (on a
// server, pg's array rows built into objects of one shape per statement text).

describe('selectRows', () => {
  let target: TestDatabase;
  let database: Database;
  const em = () => database.orm.em.fork();

  beforeAll(async () => {
    target = await createTestDatabase();
    database = await openDatabase(target.config, { migrate: false });
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  it('answers each row as an object of its columns, in select order, with their values', async () => {
    const rows = await selectRows(
      em(),
      'select n as "n", ? || n::text as "label", case when n = 2 then null else n * 10 end as "tens" ' +
        'from generate_series(1, 3) n order by n',
      ['row '],
    );
    expect(rows).toEqual([
      { n: 1, label: 'row 1', tens: 10 },
      { n: 2, label: 'row 2', tens: null },
      { n: 3, label: 'row 3', tens: 30 },
    ]);
    expect(rows.map((row) => Object.keys(row))).toEqual([
      ['n', 'label', 'tens'],
      ['n', 'label', 'tens'],
      ['n', 'label', 'tens'],
    ]);
  });

  it('answers the same statement again with its new values, and no rows as none', async () => {
    const statement = 'select ?::int as "a", ?::text as "b" where ?::boolean';
    expect(await selectRows(em(), statement, [1, 'one', true])).toEqual([{ a: 1, b: 'one' }]);
    expect(await selectRows(em(), statement, [2, 'two', true])).toEqual([{ a: 2, b: 'two' }]);
    expect(await selectRows(em(), statement, [3, 'three', false])).toEqual([]);
  });

  it('keeps the last value of a column name that appears twice, as pg rows do', async () => {
    expect(await selectRows(em(), 'select 1 as "x", 2 as "y", 3 as "x"')).toEqual([{ x: 3, y: 2 }]);
  });

  it('answers a write without returning as no rows, and its returning rows otherwise', async () => {
    await em().transactional(async (tx) => {
      await executeRows(
        tx,
        'create temporary table "t" ("id" int primary key, "note" text) on commit drop',
      );
      expect(await executeRows(tx, 'insert into "t" values (?, ?)', [1, 'a'])).toEqual([]);
      expect(
        await executeRows(tx, 'update "t" set "note" = ? where "id" = ? returning "id", "note"', [
          'b',
          1,
        ]),
      ).toEqual([{ id: 1, note: 'b' }]);
    });
  });
});
