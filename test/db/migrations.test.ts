import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/platform/postgres/orm';
import { createTestDatabase, testDatabaseKind } from '../helpers/test-database';
import { startTestApp } from '../helpers/test-app';
import { dataModel } from '../../src/data-model';

describe('migrations', () => {
  it('build the whole schema on an empty database and leave nothing pending', async () => {
    const target = await createTestDatabase({ empty: true });
    const database = await openDatabase(target.config, { model: dataModel, migrate: false });
    try {
      const migrator = database.orm.migrator;
      expect(await migrator.getExecuted()).toEqual([]);
      await migrator.up();
      expect(await migrator.getPending()).toEqual([]);
      const tables = await database.orm.em
        .getConnection()
        .execute<
          Array<{ table_name: string }>
        >("select table_name from information_schema.tables where table_schema = 'public' order by table_name");
      expect(tables.map((row) => row.table_name)).toEqual(
        expect.arrayContaining(['follows', 'meetings', 'participants', 'users']),
      );
      // The entities and the migrated schema agree: nothing left to generate.
      const diff = await database.orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(diff.replace(/set names [^;]+;/g, '').trim()).toBe('');
    } finally {
      await database.close();
      await target.drop();
    }
  });
});

(testDatabaseKind === 'embedded' ? describe : describe.skip)('the embedded database', () => {
  it('keeps its data across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meetings-data-'));
    try {
      const first = await startTestApp(
        {},
        { database: { kind: 'embedded', dataDir, poolSize: 5 } },
      );
      expect(first.instance.database.kind).toBe('embedded');
      const user = await first.seed.user();
      await first.close();

      const second = await startTestApp(
        {},
        { database: { kind: 'embedded', dataDir, poolSize: 5 } },
      );
      const me = await second.gql.data<{ me: { id: string } }>('{ me { id } }', {}, user.token);
      expect(me.me.id).toBe(user.id);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
