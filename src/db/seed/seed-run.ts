import { performance } from 'node:perf_hooks';
import { PasswordHasher } from '../../platform/auth/password';
import { loadConfig } from '../../app-config';
import type { DatabaseConfig } from '../../config';
import { openDatabase } from '../../platform/postgres/orm';
import { loadSampleData, type SeedSummary } from './load';
import type { SeedOptions } from './options';
import { progressOnStderr } from './progress';
import { FIXED_USERS, SEED_PASSWORD } from './users';
import { dataModel } from '../../data-model';

/** Where the data goes, without any password. */
function describeTarget(database: DatabaseConfig): string {
  if (database.kind === 'embedded') {
    return `the embedded database in ${database.dataDir}`;
  }
  const url = new URL(database.url);
  url.password = '';
  return `PostgreSQL at ${url.toString()}`;
}

const count = (n: number): string => n.toLocaleString('en-US');

function summaryLine(summary: SeedSummary, seconds: number): string {
  const extras = [
    summary.bigMeetingSize > 0 ? `1 big meeting of ${count(summary.bigMeetingSize)}` : null,
    summary.invitationMeetings > 0
      ? `${count(summary.invitationMeetings)} to hold invitations`
      : null,
  ].filter((part): part is string => part !== null);
  return (
    `Seeded ${count(summary.users)} users, ${count(summary.follows)} follows, ` +
    `${count(summary.meetings)} meetings${extras.length ? ` (incl. ${extras.join(', ')})` : ''}, ` +
    `${count(summary.participants)} participants ` +
    `(${count(summary.invitations)} new invitations for ${FIXED_USERS.inbox.account}) ` +
    `in ${seconds.toFixed(1)} s.`
  );
}

function loginHint(summary: SeedSummary): string {
  const fixed = Object.values(FIXED_USERS)
    .map((user) => `${user.account} (${user.email})`)
    .join(', ');
  const sample = summary.accountToken
    ? `generated accounts look like first.last.${summary.accountToken}.1`
    : 'generated accounts look like first.last.1';
  return `Every seeded user has the password "${SEED_PASSWORD}": try ${fixed}; ${sample}, e-mail <account>@example.com.`;
}

/** Loads the sample data the options describe into the configured database. */
export async function runSeed(options: SeedOptions): Promise<void> {
  const config = loadConfig();
  const started = performance.now();
  process.stderr.write(`Seeding ${describeTarget(config.database)} (seed ${options.seed})\n`);
  // One argon2 hash for everybody: hashing every user's password would take hours.
  const passwordHash = await new PasswordHasher().hash(SEED_PASSWORD);
  // On the embedded database, a running service's server is joined: both see the same data.
  const database = await openDatabase(config.database, {
    model: dataModel,
    migrate: true,
    attach: true,
  });
  let summary: SeedSummary;
  try {
    summary = await loadSampleData(
      {
        pool: database.pool.pg,
        concurrency: Math.min(4, config.database.poolSize),
        progress: progressOnStderr(),
        passwordHash,
      },
      options,
    );
  } finally {
    await database.close();
  }
  process.stdout.write(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
  process.stdout.write(`${loginHint(summary)}\n`);
}
