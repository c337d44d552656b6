import { MetadataStorage } from '@mikro-orm/core';
import { dataModel } from '../../data-model';
import type { Pool } from 'pg';
import { Follow } from '../../modules/follow/follow.entity';
import { Meeting } from '../../modules/meeting/meeting.entity';
import { Participant } from '../../modules/meeting/participants/participant.entity';
import { User } from '../../modules/user/user.entity';
import type { EntityClass } from '../../platform/sql/read-model';
import { generateFollows } from './follows';
import { participantRecords, planMeetings } from './meetings';
import type { SeedOptions } from './options';
import { type PlannedRecord, plannedInsert } from './planned';
import type { PhaseStarter } from './progress';
import { Random } from './random';
import { chunks, insertBatch, queryCount, runBatches } from './sql';
import { chooseAccountToken, ensureFixedUsers, generateUsers, type SeedUser } from './users';

/** Rows per INSERT, kept well below PostgreSQL's 65,535 parameters per statement. */
const BATCH_ROWS = { users: 2_000, follows: 5_000, meetings: 2_000, participants: 5_000 };

/** How the data is written. */
export interface LoadContext {
  pool: Pool;
  /** INSERTs in flight at once. */
  concurrency: number;
  progress: PhaseStarter;
  /** The argon2 hash of SEED_PASSWORD, shared by every seeded user. */
  passwordHash: string;
  /** "Now" for the generated timestamps (ms since the epoch). */
  now?: number;
}

/** What one run inserted. */
export interface SeedSummary {
  users: number;
  fixedUsersCreated: number;
  follows: number;
  meetings: number;
  invitationMeetings: number;
  bigMeetingSize: number;
  participants: number;
  invitations: number;
  /** Suffix of this run's generated accounts ('' on a fresh database). */
  accountToken: string;
}

/**
 * The tables of the entities, read from their declarations, and those the modules keep without
 * one (rooms' bookings refer to meetings); the migrations table is none.
 */
function entityTables(): string[] {
  const names = new Set(dataModel.entities.map((entity) => entity.name));
  return [
    ...Object.values(MetadataStorage.getMetadata())
      .filter((meta) => names.has(meta.className) && meta.tableName)
      .map((meta) => meta.tableName),
    ...dataModel.unmappedTables,
  ];
}

/** Empties the entities' tables and the modules' own (the migrations table stays). */
export async function truncateTables(pool: Pool): Promise<void> {
  // One statement for all: truncation fires no row triggers, so the search counters go too.
  await pool.query(
    `truncate table ${entityTables()
      .map((table) => `"${table}"`)
      .join(', ')}`,
  );
}

/** Inserts planned records in batches, counting what went in and reporting progress. */
async function insertAll<E>(
  context: LoadContext,
  phase: { label: string; total: number; entity: EntityClass<E> },
  records: Iterable<PlannedRecord<E>>,
  options: { batchRows: number; ignoreConflicts?: boolean },
): Promise<number> {
  const progress = context.progress(phase.label, phase.total);
  let inserted = 0;
  await runBatches(chunks(records, options.batchRows), context.concurrency, async (batch) => {
    // Await first, then add: `inserted += await ...` would lose counts of concurrent batches.
    const count = await insertBatch(
      context.pool,
      plannedInsert(phase.entity, batch, options.ignoreConflicts),
    );
    inserted += count;
    progress.increment(batch.length);
  });
  progress.done();
  return inserted;
}

/** Unanswered invitations the user already has in open meetings owned by others. */
function countInvitations(pool: Pool, userId: string): Promise<number> {
  return queryCount(
    pool,
    `select count(*)::int as n from "participants" p join "meetings" m on m."id" = p."meeting_id"
     where p."user_id" = ? and p."status" = 'new' and m."status" in ('pending', 'confirmed')
       and m."owner_id" <> ?`,
    [userId, userId],
  );
}

/** Inserts `count` generated users; answers how many were inserted, and who they are. */
async function insertUsers(
  context: LoadContext,
  rng: Random,
  run: { count: number; accountToken: string; now: number },
): Promise<{ users: number; generated: SeedUser[] }> {
  const generated: SeedUser[] = [];
  function* userRecords(): Generator<PlannedRecord<User>> {
    for (const { user, record } of generateUsers(
      rng,
      run.count,
      run.accountToken,
      context.passwordHash,
      run.now,
    )) {
      generated.push(user);
      yield record;
    }
  }
  const users = await insertAll(
    context,
    { label: 'users', total: run.count, entity: User },
    userRecords(),
    { batchRows: BATCH_ROWS.users },
  );
  return { users, generated };
}

/** Loads sample data: users, follows, meetings and participants. */
export async function loadSampleData(
  context: LoadContext,
  options: SeedOptions,
): Promise<SeedSummary> {
  const { pool } = context;
  const now = context.now ?? Date.now();
  if (options.reset) {
    await truncateTables(pool);
  }

  // Users: the fixed ones first (kept if they exist), then the generated ones.
  const fixed = await ensureFixedUsers(pool, context.passwordHash, now);
  const accountToken = await chooseAccountToken(pool);
  // A fresh database gets the same data for the same seed; a later run adds different data.
  const rng = accountToken ? new Random(options.seed).fork(accountToken) : new Random(options.seed);
  const { users, generated } = await insertUsers(context, rng.fork('users'), {
    count: options.users,
    accountToken,
    now,
  });

  // Follows among this run's users and the fixed ones.
  const { demo, inbox, admin } = fixed.users;
  const followers = [...generated, demo, inbox, admin];
  const perUser = Math.min(options.followsPerUser, followers.length - 1);
  const follows = await insertAll(
    context,
    { label: 'follows', total: followers.length * perUser, entity: Follow },
    generateFollows(rng.fork('follows'), followers, perUser, now),
    { batchRows: BATCH_ROWS.follows, ignoreConflicts: true },
  );

  // Meetings with their participants; the inbox user's invitations are topped up to the target.
  const existingInvitations = await countInvitations(pool, inbox.id);
  const invitations = Math.max(0, options.pendingInvitations - existingInvitations);
  const plan = planMeetings(rng.fork('meetings'), {
    now,
    pool: [...generated, demo],
    demo,
    inbox,
    meetings: options.meetings,
    minParticipants: options.minParticipants,
    maxParticipants: options.maxParticipants,
    bigMeetingParticipants: options.bigMeetingParticipants,
    invitations,
  });
  const meetings = await insertAll(
    context,
    { label: 'meetings', total: plan.meetings.length, entity: Meeting },
    plan.meetings,
    { batchRows: BATCH_ROWS.meetings },
  );
  const participants = await insertAll(
    context,
    {
      label: 'participants',
      total: plan.meetings.reduce((sum, m) => sum + m.participants.length, 0),
      entity: Participant,
    },
    participantRecords(plan.meetings),
    { batchRows: BATCH_ROWS.participants, ignoreConflicts: true },
  );

  return {
    users: users + fixed.inserted,
    fixedUsersCreated: fixed.inserted,
    follows,
    meetings,
    invitationMeetings: plan.invitationMeetings,
    bigMeetingSize: plan.bigMeetingSize,
    participants,
    invitations: (await countInvitations(pool, inbox.id)) - existingInvitations,
    accountToken,
  };
}
