import '../runtime-start';
import 'reflect-metadata';
import { usage } from '../command-line';
import { ConfigError } from '../config';
import { EXIT_USAGE, StartupError } from '../platform/shared/startup-error';
import { openCommandDatabase } from './command-database';
import { UserStore } from '../modules/user';

const USAGE = usage(
  'npm run admin -- grant <email>',
  'Makes the account with that e-mail address an admin (the first admin of a new service), on\n' +
    "the database (DATABASE_URL, or the embedded one in DATA_DIR: a running service's server is\n" +
    'joined), and exits. --help opens nothing.',
);

/** `grant <email>`: the one command; anything else is a usage error. */
async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, email, ...rest] = argv;
  if (command !== 'grant' || !email || rest.length > 0) {
    process.stderr.write(`usage: npm run admin -- grant <email>\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const database = await openCommandDatabase();
  try {
    const address = email.trim().toLowerCase();
    if (!(await new UserStore(database.orm.em.fork()).grantAdmin(address))) {
      process.stderr.write(`admin: no account has the e-mail address ${address}\n`);
      return 1;
    }
    process.stdout.write(`admin: ${address} is an admin\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof StartupError;
    process.stderr.write(`${known ? error.message : String(error)}\n`);
    process.exitCode = error instanceof StartupError ? error.exitCode : 1;
  },
);
