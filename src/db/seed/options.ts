import { parseArgs } from 'node:util';

/** What to load; see USAGE. */
export interface SeedOptions {
  users: number;
  followsPerUser: number;
  meetings: number;
  minParticipants: number;
  maxParticipants: number;
  bigMeetingParticipants: number;
  pendingInvitations: number;
  seed: number;
  reset: boolean;
}

export const DEFAULT_SEED_OPTIONS: SeedOptions = {
  users: 200,
  followsPerUser: 20,
  meetings: 100,
  minParticipants: 2,
  maxParticipants: 12,
  bigMeetingParticipants: 50,
  pendingInvitations: 200,
  seed: 42,
  reset: false,
};

export const USAGE = `Usage: npm run seed -- [options]
       node dist/src/db/seed/seed.js [options]

Loads sample data into the configured database (DATABASE_URL for PostgreSQL, otherwise the
embedded database under DATA_DIR, default ./data), applying pending migrations first. While the
service runs on the same embedded database, the seed joins its server: the service sees the rows
at once.

Options:
  --users <n>                      generated users (default ${DEFAULT_SEED_OPTIONS.users})
  --follows-per-user <n>           follows made by each user, capped at users-1 (default ${DEFAULT_SEED_OPTIONS.followsPerUser})
  --meetings <n>                   generated meetings (default ${DEFAULT_SEED_OPTIONS.meetings})
  --min-participants <n>           fewest participants of a meeting, owner included (default ${DEFAULT_SEED_OPTIONS.minParticipants})
  --max-participants <n>           most participants of a meeting, owner included (default ${DEFAULT_SEED_OPTIONS.maxParticipants})
  --big-meeting-participants <n>   one extra meeting with this many participants, 0 for none (default ${DEFAULT_SEED_OPTIONS.bigMeetingParticipants})
  --pending-invitations <n>        unanswered invitations of the user "inbox.user" (default ${DEFAULT_SEED_OPTIONS.pendingInvitations})
  --seed <n>                       seed of the pseudo-random generator, 0 to 4294967295 (default ${DEFAULT_SEED_OPTIONS.seed})
  --reset                          empty the users, follows, meetings and participants tables first
  -h, --help                       show this help

Every seeded user has the password "password123". Fixed users: demo (demo@example.com),
inbox.user (inbox@example.com) and admin (admin@example.com, role admin).
Without --reset, a second run adds more data: generated accounts get a run-specific suffix and
the fixed users are reused.`;

/** A bad command line: print the message and the hint to --help. */
export class SeedUsageError extends Error {}

type NumberOption = Exclude<keyof SeedOptions, 'reset'>;

const NUMBER_OPTIONS: readonly (readonly [string, NumberOption, number, number])[] = [
  ['users', 'users', 0, 10_000_000],
  ['follows-per-user', 'followsPerUser', 0, 100_000],
  ['meetings', 'meetings', 0, 5_000_000],
  ['min-participants', 'minParticipants', 1, 100_000],
  ['max-participants', 'maxParticipants', 1, 100_000],
  ['big-meeting-participants', 'bigMeetingParticipants', 0, 1_000_000],
  ['pending-invitations', 'pendingInvitations', 0, 1_000_000],
  ['seed', 'seed', 0, 4_294_967_295],
];

function parseCount(flag: string, raw: string, min: number, max: number): number {
  const text = raw.trim().replace(/_/g, '');
  if (!/^\d+$/.test(text)) {
    throw new SeedUsageError(`--${flag} must be a whole number, got "${raw}"`);
  }
  const value = Number(text);
  if (value < min || value > max) {
    throw new SeedUsageError(
      `--${flag} must be between ${min.toLocaleString('en-US')} and ${max.toLocaleString('en-US')}, got ${raw}`,
    );
  }
  return value;
}

/** The parsed command line, or 'help' when --help was given. Throws SeedUsageError. */
export function parseSeedArgs(argv: readonly string[]): SeedOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new SeedUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) {
    return 'help';
  }
  const options: SeedOptions = { ...DEFAULT_SEED_OPTIONS, reset: values.reset ?? false };
  for (const [flag, key, min, max] of NUMBER_OPTIONS) {
    const raw = values[flag as keyof typeof values];
    if (typeof raw === 'string') {
      options[key] = parseCount(flag, raw, min, max);
    }
  }
  if (options.maxParticipants < options.minParticipants) {
    throw new SeedUsageError(
      `--max-participants (${options.maxParticipants}) must not be less than --min-participants (${options.minParticipants})`,
    );
  }
  options.followsPerUser = Math.min(options.followsPerUser, Math.max(0, options.users - 1));
  return options;
}

function parse(argv: readonly string[]) {
  const text = { type: 'string' } as const;
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      users: text,
      'follows-per-user': text,
      meetings: text,
      'min-participants': text,
      'max-participants': text,
      'big-meeting-participants': text,
      'pending-invitations': text,
      seed: text,
      reset: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
