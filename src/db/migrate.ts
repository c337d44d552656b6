import '../runtime-start';
import 'reflect-metadata';
import { exitOnHelp, usage } from '../command-line';
import { ConfigError } from '../config';
import { StartupError } from '../platform/shared/startup-error';
import { openCommandDatabase } from './command-database';

/** Applies pending migrations to the configured database and exits. */
async function main(): Promise<void> {
  exitOnHelp(
    process.argv.slice(2),
    usage(
      'npm run migrate [-- --help]',
      'Applies the pending migrations to the database (DATABASE_URL, or the embedded one in\n' +
        "DATA_DIR: a running service's server is joined) and exits. --help opens nothing.",
    ),
  );
  const database = await openCommandDatabase();
  try {
    const applied = await database.orm.migrator.up();
    console.log(
      applied.length ? `applied: ${applied.map((m) => m.name).join(', ')}` : 'schema is up to date',
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof StartupError;
  console.error(known ? error.message : error);
  process.exit(error instanceof StartupError ? error.exitCode : 1);
});
