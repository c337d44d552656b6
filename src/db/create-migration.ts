import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { openEmbeddedServer } from '../platform/postgres/embedded/embedded-server';
import { buildOrmOptions } from '../platform/postgres/orm';
import { dataModel } from '../data-model';

/**
 * Writes a migration for the difference between the entities and the committed snapshot, diffed
 * on a throwaway embedded database.
 */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meetings-migration-'));
  const server = await openEmbeddedServer(dataDir, { attach: false });
  try {
    const options = buildOrmOptions(dataModel, server.url);
    // The sources' folder, not the compiled one this program runs from (dist/): MikroORM writes a
    // TypeScript migration to `pathTs` and reads the snapshot there.
    const sources = resolve('src/db/migrations');
    const orm = await MikroORM.init({
      ...options,
      migrations: {
        ...options.migrations,
        path: sources,
        pathTs: sources,
        emit: 'ts',
        snapshot: true,
      },
    });
    try {
      const migrator = orm.migrator;
      await migrator.up();
      const initial = (await migrator.getExecuted()).length === 0;
      const result = await migrator.create(undefined, false, initial);
      console.log(result.fileName ? `created ${result.fileName}` : 'no changes');
    } finally {
      await orm.close(true);
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
