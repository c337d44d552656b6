import { resolve } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { buildOrmOptions } from './orm';

/** Writes a migration for the difference between the entities and the committed snapshot. */
async function main(): Promise<void> {
  const { options, pglite } = buildOrmOptions({ kind: 'pglite', dataDir: null });
  const orm = await MikroORM.init({
    ...options,
    migrations: {
      ...options.migrations,
      path: resolve('src/db/migrations'),
      emit: 'ts',
      snapshot: true,
    },
  });
  try {
    const migrator = orm.getMigrator();
    await migrator.up();
    const initial = (await migrator.getExecutedMigrations()).length === 0;
    const result = await migrator.createMigration(undefined, false, initial);
    console.log(result.fileName ? `created ${result.fileName}` : 'no changes');
  } finally {
    await orm.close(true);
    await pglite?.close();
  }
}

void main();
