import {
  type Column,
  executeRows,
  RecordReader,
  readAll,
  selectRows,
  toIsoTimestamp,
} from '../../src/platform/sql/rows';
import { useOpenedDatabase } from '../helpers/test-database';

// selectRows answers plain rows, column alias → value, whichever way it reached the database (on a
// server, pg's array rows built into objects of one shape per statement text). Records read from
// them have their properties in column order and timestamps as the API writes them (ISO 8601
// UTC, milliseconds), whatever precision and offset the database answered.

const database = useOpenedDatabase();
const em = () => database().orm.em.fork();

describe('selectRows', () => {
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

  it('parses integer[] and text[] values, one frozen array per repeated short text', async () => {
    const rows = await selectRows(
      em(),
      `select array[10, n]::int[] as "minutes", '{}'::text[] as "muted", ` +
        `array[repeat('x', 70)]::text[] as "long" from generate_series(1, 3) n order by n`,
    );
    expect(rows.map((row) => row.minutes)).toEqual([
      [10, 1],
      [10, 2],
      [10, 3],
    ]);
    const [first, , third] = rows;
    // The same text on another row (and in another statement) is the same array, parsed once.
    const again = await selectRows(
      em(),
      `select '{10,1}'::int[] as "minutes", '{}'::text[] as "muted"`,
    );
    expect(again[0]?.minutes).toBe(first?.minutes);
    expect(third?.muted).toBe(first?.muted);
    expect(first?.muted).toEqual([]);
    expect(Object.isFrozen(first?.minutes)).toBe(true);
    expect(() => (first?.minutes as number[]).push(4)).toThrow(TypeError);
    // A long text is parsed each time: no row keeps another's.
    expect(third?.long).toEqual(['x'.repeat(70)]);
    expect(third?.long).not.toBe(first?.long);
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

describe('toIsoTimestamp', () => {
  it.each([
    ['2026-11-22 04:21:03.032145+00', '2026-11-22T04:21:03.032Z'],
    ['2026-11-22 04:21:03.0329+00', '2026-11-22T04:21:03.032Z'],
    ['2026-11-22 04:21:03.032+00', '2026-11-22T04:21:03.032Z'],
    ['2026-11-22 04:21:03.03+00', '2026-11-22T04:21:03.030Z'],
    ['2026-11-22 04:21:03.5+00', '2026-11-22T04:21:03.500Z'],
    ['2026-11-22 04:21:03+00', '2026-11-22T04:21:03.000Z'],
    ['2026-11-22 06:21:03.032145+02', '2026-11-22T04:21:03.032Z'],
    ['2026-11-21 23:51:03.032+05:30', '2026-11-21T18:21:03.032Z'],
    ['2026-11-22 00:21:03-04', '2026-11-22T04:21:03.000Z'],
  ])('%s → %s', (text, iso) => {
    expect(toIsoTimestamp(text)).toBe(iso);
  });

  it('writes a Date as its ISO text', () => {
    expect(toIsoTimestamp(new Date(Date.UTC(2026, 10, 22, 4, 21, 3, 32)))).toBe(
      '2026-11-22T04:21:03.032Z',
    );
  });
});

describe('RecordReader', () => {
  const columns = new Map<string, Column>([
    ['id', { name: 'id' }],
    ['note', { name: 'note' }],
    ['seenAt', { name: 'seen_at', timestamp: true }],
    ['gone', { name: 'gone', timestamp: true }],
  ]);
  interface Note {
    id: number;
    note: string | null;
    seenAt: string;
    gone: string | null;
  }
  const notes = new RecordReader<Note>(columns, 'n_');

  it('reads each row into a record of the columns, in order, with ISO timestamps', async () => {
    const rows = await selectRows(
      em(),
      `select ${notes.select('t')} from (values ` +
        `(1, 'micro', '2026-11-22 04:21:03.032145+00'::timestamptz, null::timestamptz), ` +
        `(2, null, '2026-11-22 04:21:03.5+00', '2026-11-23 00:00:00+00'), ` +
        `(3, 'offset', '2026-11-22 06:21:03.032+02', null)` +
        `) t ("id", "note", "seen_at", "gone") order by t."id"`,
    );
    const records = readAll(notes, rows);
    expect(records).toEqual([
      { id: 1, note: 'micro', seenAt: '2026-11-22T04:21:03.032Z', gone: null },
      { id: 2, note: null, seenAt: '2026-11-22T04:21:03.500Z', gone: '2026-11-23T00:00:00.000Z' },
      { id: 3, note: 'offset', seenAt: '2026-11-22T04:21:03.032Z', gone: null },
    ]);
    expect(records.map((record) => Object.keys(record))).toEqual(
      records.map(() => ['id', 'note', 'seenAt', 'gone']),
    );
  });

  it('reads no record where a left join found none, and skips it in readAll', async () => {
    const rows = await selectRows(
      em(),
      `select k."k", ${notes.select('t')} from (values (1), (2)) k ("k") left join (values ` +
        `(1, 'only', '2026-11-22 04:21:03+00'::timestamptz, null::timestamptz)` +
        `) t ("id", "note", "seen_at", "gone") on t."id" = k."k" order by k."k"`,
    );
    expect(rows.map((row) => notes.read(row))).toEqual([
      { id: 1, note: 'only', seenAt: '2026-11-22T04:21:03.000Z', gone: null },
      null,
    ]);
    expect(readAll(notes, rows)).toHaveLength(1);
  });
});
