import { benchUsers, createMeetings, readFixtures, withClient } from '../lib/db';
import { graphqlData } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import type { Server } from '../lib/processes';
import { CONNECT_BATCH, untilActive } from './live-clients';
import { Subscriber } from './resume-subscriber';
import { KEYS, startService, TOKENS } from './targets';

// The resume scenario's data and stage (run/resume-pass.ts): its owner and meetings, a service
// with 1,000 subscribers connected, and the changes.

export const RESUME = {
  subscribers: 1_000,
  meetings: 50,
  /**
   * Changes of each meeting in each phase. One: each change is read by every subscription, so
   * the phase's work grows with changes × subscribers (two changes took over two minutes here).
   */
  changesPerMeeting: 1,
  writers: 4,
  /** How long the subscribers have to catch up once the phase's writes are done. */
  catchUpMs: 300_000,
} as const;

const RESUME_USERS = [{ account: 'bench.resume.owner', name: 'Bench Resume Owner' }];

const UPDATE =
  'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }';

/** The scenario's users, meetings and subscribers, on a service started for it. */
export interface Stage {
  service: Server;
  dbUrl: string;
  ownerToken: string;
  meetings: string[];
  subscribers: Subscriber[];
  connectSeconds: number;
}

/** Removes the owner's meetings (their participants go with them). */
export async function cleanupResume(dbUrl: string): Promise<void> {
  await withClient(dbUrl, (client) =>
    client.query(
      `delete from "meetings" where "owner_id" in (select "id" from "users" where "account" = any($1))`,
      [RESUME_USERS.map((user) => user.account)],
    ),
  );
}

/** The cursor of the newest change logged, or null when the log is empty. */
async function newestCursor(dbUrl: string): Promise<string | null> {
  const rows = await withClient(dbUrl, (client) =>
    client.query<{ cursor: string }>(
      `select "tx"::text || '.' || "position"::text as "cursor" from "change_log"
       order by "tx" desc, "position" desc limit 1`,
    ),
  );
  return rows.rows[0]?.cursor ?? null;
}

export async function stage(
  dbUrl: string,
  serviceUrl: string,
  options: { logLevel: 'info' | 'warn'; root?: string; name?: string },
): Promise<Stage> {
  await cleanupResume(dbUrl);
  const [ownerId] = (await benchUsers(dbUrl, RESUME_USERS)) as [string];
  const fixtures = await readFixtures(dbUrl, RESUME.subscribers);
  if (fixtures.invitees.length < RESUME.subscribers) {
    throw new Error(`resume: only ${fixtures.invitees.length} users to subscribe`);
  }
  const perMeeting = RESUME.subscribers / RESUME.meetings;
  const guestsOf = (i: number) => fixtures.invitees.slice(i * perMeeting, (i + 1) * perMeeting);
  const meetings = await createMeetings(dbUrl, ownerId, RESUME.meetings, {
    title: 'Bench resume meeting',
    guests: guestsOf,
  });
  const service = await startService(serviceUrl, options.logLevel, {
    // A socket the service closed may still count for a moment when its user comes back.
    env: { SOCKETS_PER_USER: '2', SUBSCRIPTIONS_PER_SOCKET: '1' },
    ...(options.root ? { root: options.root } : {}),
    ...(options.name ? { name: options.name } : {}),
  });
  // Each starts after the newest change there is, as a client that kept its cursor would: every
  // subscription then resumes alike, and none needs an event of its own first.
  const from = await newestCursor(dbUrl);
  const subscribers = meetings.flatMap((meetingId, i) =>
    guestsOf(i).map((userId) => new Subscriber(service, userId, meetingId, from)),
  );
  const started = performance.now();
  for (let i = 0; i < subscribers.length; i += CONNECT_BATCH) {
    for (const subscriber of subscribers.slice(i, i + CONNECT_BATCH)) {
      subscriber.open();
    }
    await untilActive(service, Math.min(i + CONNECT_BATCH, subscribers.length));
  }
  return {
    service,
    dbUrl,
    ownerToken: signAccessToken(KEYS, TOKENS, ownerId),
    meetings,
    subscribers,
    connectSeconds: (performance.now() - started) / 1000,
  };
}

export async function unstage(s: Stage): Promise<void> {
  await Promise.all(s.subscribers.map((subscriber) => subscriber.leave()));
  await s.service.stop();
  await cleanupResume(s.dbUrl);
}

/**
 * `perMeeting` changes of each of the first `meetings` meetings (updateMeeting as the owner),
 * four at a time.
 */
export async function writeChanges(
  s: Stage,
  { perMeeting, meetings }: Changes,
  round: string,
): Promise<number> {
  const total = perMeeting * meetings;
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < total) {
      const n = next;
      next += 1;
      await graphqlData(
        s.service.url,
        s.ownerToken,
        UPDATE,
        {
          input: {
            meetingId: s.meetings[n % meetings],
            description: `Bench resume ${round}, change ${n + 1}`,
          },
        },
        'resume',
      );
    }
  };
  await Promise.all(Array.from({ length: RESUME.writers }, writer));
  return total;
}

/** How many changes a phase makes: of each of how many meetings (the first ones). */
export interface Changes {
  perMeeting: number;
  meetings: number;
}

/** The cursors of the changes logged for each meeting, by meeting id. */
export async function loggedCursors(s: Stage): Promise<Map<string, string[]>> {
  const rows = await withClient(s.dbUrl, (client) =>
    client.query<{ meeting_id: string; cursor: string }>(
      `select "scope_id" as "meeting_id", "tx"::text || '.' || "position"::text as "cursor"
       from "change_log" where "scope_id" = any($1)`,
      [s.meetings],
    ),
  );
  const byMeeting = new Map<string, string[]>();
  for (const row of rows.rows) {
    byMeeting.set(row.meeting_id, [...(byMeeting.get(row.meeting_id) ?? []), row.cursor]);
  }
  return byMeeting;
}
