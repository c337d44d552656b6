import '../runtime-start';
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from './orm';

/** Applies pending migrations to the configured database and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  // On the embedded database, a running service's server is joined, not refused.
  const database = await openDatabase(config.database, { migrate: false, attach: true });
  try {
    const applied = await database.orm.getMigrator().up();
    console.log(
      applied.length ? `applied: ${applied.map((m) => m.name).join(', ')}` : 'schema is up to date',
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
