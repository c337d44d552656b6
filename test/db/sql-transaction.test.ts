import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { deferWrite } from '../../src/platform/sql/connections';
import { executeRows, selectRows } from '../../src/platform/sql/rows';
import { inSqlTransaction } from '../../src/platform/sql/sql-transaction';
import { useOpenedDatabase } from '../helpers/test-database';

// A transaction of statements (src/platform/sql/sql-transaction.ts): on a server, BEGIN and COMMIT on one
// pooled connection without the ORM; on the embedded database, the ORM's transaction. Either way
// its writes are seen together at commit, or not at all.

const database = useOpenedDatabase();
const em = () => database().orm.em.fork();

const notes = async (): Promise<string[]> =>
  (await selectRows(em(), 'select "note" from "notes" order by "id"')).map((row) =>
    String(row['note']),
  );

beforeAll(async () => {
  await executeRows(em(), 'create table "notes" ("id" int primary key, "note" text not null)');
  await executeRows(
    em(),
    'create table "stamps" ("id" int primary key, "at" timestamptz not null)',
  );
});
beforeEach(async () => {
  await executeRows(em(), 'delete from "notes"');
  await executeRows(em(), 'delete from "stamps"');
});

describe('inSqlTransaction', () => {
  it('commits its writes, and answers what its work answered', async () => {
    const answer = await inSqlTransaction(em(), async (tx) => {
      await executeRows(tx, 'insert into "notes" values (?, ?)', [1, 'one']);
      await executeRows(tx, 'insert into "notes" values (?, ?)', [2, 'two']);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await notes()).toEqual(['one', 'two']);
  });

  it('runs its statements on one connection, in one transaction, unseen by others until commit', async () => {
    await inSqlTransaction(em(), async (tx) => {
      const first = await selectRows(tx, 'select pg_backend_pid() as "pid", txid_current() as "x"');
      await executeRows(tx, 'insert into "notes" values (?, ?)', [1, 'inside']);
      expect(await notes()).toEqual([]);
      const second = await selectRows(
        tx,
        'select pg_backend_pid() as "pid", txid_current() as "x"',
      );
      expect(second).toEqual(first);
    });
    expect(await notes()).toEqual(['inside']);
  });

  it('rolls back when its work throws, and rejects with that error', async () => {
    const failure = new Error('changed my mind');
    await expect(
      inSqlTransaction(em(), async (tx) => {
        await executeRows(tx, 'insert into "notes" values (?, ?)', [1, 'gone']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await notes()).toEqual([]);
  });

  it('rolls back when a statement fails, with the error converted as the ORM converts it', async () => {
    await executeRows(em(), 'insert into "notes" values (?, ?)', [1, 'before']);
    await expect(
      inSqlTransaction(em(), async (tx) => {
        await executeRows(tx, 'insert into "notes" values (?, ?)', [2, 'gone']);
        await executeRows(tx, 'insert into "notes" values (?, ?)', [1, 'twice']);
      }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    expect(await notes()).toEqual(['before']);
  });

  it('gives every connection back: more failing and committing transactions than the pool holds', async () => {
    const runs = Array.from({ length: 24 }, (_, index) =>
      inSqlTransaction(em(), async (tx) => {
        await executeRows(tx, 'insert into "notes" values (?, ?)', [index, `note ${index}`]);
        if (index % 2 === 1) {
          throw new Error(`run ${index} fails`);
        }
      }),
    );
    const settled = await Promise.allSettled(runs);
    expect(settled.filter((run) => run.status === 'fulfilled')).toHaveLength(12);
    expect(await notes()).toHaveLength(12);
    // The pool (5 connections) still serves a transaction.
    await inSqlTransaction(em(), (tx) =>
      executeRows(tx, 'insert into "notes" values (?, ?)', [99, 'last']),
    );
    expect(await notes()).toHaveLength(13);
  });
});

describe('a write held back in an SQL transaction (deferWrite)', () => {
  // statement_timestamp() is the start of the statement the server is running: two rows stamped
  // alike were written by one statement, one round trip.
  const stamp = (id: number) => ({
    sql: 'insert into "stamps" values (?, statement_timestamp())',
    params: [id],
  });
  const stamps = async (): Promise<Array<{ id: number; at: string }>> =>
    (await selectRows(em(), 'select "id", "at"::text as "at" from "stamps" order by "id"')).map(
      (row) => ({ id: Number(row['id']), at: String(row['at']) }),
    );

  it('rides on the very next statement of its transaction, a read too', async () => {
    await inSqlTransaction(em(), async (tx) => {
      expect(deferWrite(tx, () => stamp(1))).toBe(true);
      await executeRows(tx, 'select pg_sleep(0.01)');
      await executeRows(tx, 'insert into "stamps" values (?, statement_timestamp())', [2]);
    });
    const [first, second] = await stamps();
    expect(first?.at).not.toBe(second?.at);
    expect(await stamps()).toHaveLength(2);
  });

  it("is one statement with the write it rides on, its values before that statement's", async () => {
    await inSqlTransaction(em(), async (tx) => {
      await executeRows(tx, 'select pg_sleep(0.01)');
      deferWrite(tx, () => stamp(1));
      await executeRows(tx, 'insert into "stamps" values (?, statement_timestamp())', [2]);
    });
    const [first, second] = await stamps();
    expect(first?.id).toBe(1);
    expect(second?.id).toBe(2);
    expect(first?.at).toBe(second?.at);
  });

  it('rides on a statement with a WITH of its own, RECURSIVE too', async () => {
    await inSqlTransaction(em(), async (tx) => {
      deferWrite(tx, () => stamp(1));
      deferWrite(tx, () => stamp(2));
      const [row] = await selectRows(
        tx,
        'with recursive "n"("i") as (select ?::int union all select "i" + 1 from "n" where "i" < 3) ' +
          'select sum("i")::int as "sum", statement_timestamp()::text as "at" from "n"',
        [1],
      );
      expect(row?.['sum']).toBe(6);
      deferWrite(tx, () => stamp(3));
      await executeRows(
        tx,
        'with "it" as (select ?::int as "id") insert into "stamps" select "id", statement_timestamp() from "it"',
        [4],
      );
    });
    const rows = await stamps();
    expect(rows.map((row) => row.id)).toEqual([1, 2, 3, 4]);
    expect(rows[0]?.at).toBe(rows[1]?.at);
    expect(rows[2]?.at).toBe(rows[3]?.at);
    expect(rows[1]?.at).not.toBe(rows[2]?.at);
  });

  it('is sent alone before COMMIT when no statement follows, as it stands then', async () => {
    let id = 1;
    await inSqlTransaction(em(), async (tx) => {
      deferWrite(tx, () => stamp(id));
      id = 7;
    });
    expect((await stamps()).map((row) => row.id)).toEqual([7]);
  });

  it('is dropped with its transaction when the work throws', async () => {
    await expect(
      inSqlTransaction(em(), async (tx) => {
        deferWrite(tx, () => stamp(1));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await stamps()).toEqual([]);
  });

  it('is rolled back with the statement it rode on when that statement fails', async () => {
    await executeRows(em(), 'insert into "notes" values (?, ?)', [1, 'before']);
    await expect(
      inSqlTransaction(em(), async (tx) => {
        deferWrite(tx, () => stamp(1));
        await executeRows(tx, 'insert into "notes" values (?, ?)', [1, 'twice']);
      }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    expect(await stamps()).toEqual([]);
  });

  it('is not held outside an SQL transaction: the caller sends it', () => {
    expect(deferWrite(em(), () => stamp(1))).toBe(false);
  });
});
