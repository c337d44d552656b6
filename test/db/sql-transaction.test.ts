import { UniqueConstraintViolationException } from '@mikro-orm/core';
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
});
beforeEach(async () => {
  await executeRows(em(), 'delete from "notes"');
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
