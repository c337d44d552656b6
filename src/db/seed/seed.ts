import '../../runtime-start';
import 'reflect-metadata';
import { ConfigError } from '../../config';
import { StartupError } from '../../platform/shared/startup-error';
import { parseSeedArgs, SeedUsageError, USAGE } from './options';

async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseSeedArgs(argv);
  } catch (error) {
    if (error instanceof SeedUsageError) {
      process.stderr.write(`seed: ${error.message}\nRun with --help for usage.\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Loaded only now: the ORM and the schema take a second to load, which --help need not wait.
  const { runSeed } = await import('./seed-run.js');
  await runSeed(options);
  return 0;
}
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `seed failed: ${error instanceof ConfigError || error instanceof StartupError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = error instanceof StartupError ? error.exitCode : 1;
  },
);
