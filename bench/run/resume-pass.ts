import { benchUsers, createMeetings, readFixtures, withClient } from '../lib/db';
import { graphqlData } from '../lib/http';
import { signAccessToken } from '../lib/jwt';
import { type Cost, costMeter, sampleRss, type Server } from '../lib/processes';
import { CONNECT_BATCH, terminateListener, untilActive } from './live-clients';
import { fmt, log, status } from './progress';
import { Subscriber } from './resume-subscriber';
import { KEYS, startService, TOKENS } from './targets';

/*
 * The resume scenario: 1,000 users each hold a WebSocket with a `myMeetingEvents` subscription;
 * they are the guests of 50 meetings (20 each) of one owner. Every subscriber keeps the cursor of
 * the last event it received and, when its socket closes (the service closes a subscriber that
 * does not keep up, 1013), opens a new one with `after: <that cursor>`, as a client that must
 * not miss events does. Two phases, each timed until every subscriber has every event of its
 * meeting that the phase made (from the change log), none twice:
 *   - listener cut: the service's event-listener connection is terminated on the server and the
 *     meetings are changed at once (updateMeeting, four writers), while it reconnects;
 *   - clients resume: every subscriber closes its socket, the meetings are changed meanwhile,
 *     then all 1,000 reconnect at once with their cursors (the missed events are replayed).
 * On another start behind the statement-counting proxy, the SQL statements per event delivered.
 */

export const RESUME = {
  subscribers: 1_000,
  meetings: 50,
  /** Changes of each meeting in each phase. */
  changesPerMeeting: { quick: 1, full: 2 },
  writers: 4,
  /** How long the subscribers have to catch up once the phase's writes are done. */
  catchUpMs: 120_000,
} as const;

const RESUME_USERS = [{ account: 'bench.resume.owner', name: 'Bench Resume Owner' }];

const UPDATE =
  'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }';

/** What one phase found. */
export interface ResumePhase {
  changes: number;
  /** Events the subscribers must receive (each change, to each guest of its meeting). */
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  wrong: number;
  /** From the phase's start to the last subscriber having every event (NaN: not all did). */
  seconds: number;
  /** The same for each subscriber, ms, sorted. */
  caughtUp: Float64Array;
  /** Sockets the service closed during the phase, by code (1013: a subscriber not keeping up). */
  closes: Record<string, number>;
  cost: Cost;
}

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
async function writeChanges(
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
interface Changes {
  perMeeting: number;
  meetings: number;
}

/** The cursors of the changes logged for each meeting, by meeting id. */
async function loggedCursors(s: Stage): Promise<Map<string, string[]>> {
  const rows = await withClient(s.dbUrl, (client) =>
    client.query<{ meeting_id: string; cursor: string }>(
      `select "meeting_id", "tx"::text || '.' || "position"::text as "cursor" from "change_log"
       where "meeting_id" = any($1)`,
      [s.meetings],
    ),
  );
  const byMeeting = new Map<string, string[]>();
  for (const row of rows.rows) {
    byMeeting.set(row.meeting_id, [...(byMeeting.get(row.meeting_id) ?? []), row.cursor]);
  }
  return byMeeting;
}

/**
 * One phase: `start` (cut the listener, or bring the subscribers back) at t0, `write` the
 * changes around it; then waits until every subscriber has each of its meeting's new changes.
 */
export async function phase(
  s: Stage,
  label: string,
  steps: { before?: () => Promise<void>; start: () => Promise<void> | void; writeFirst: boolean },
  changes: Changes,
): Promise<ResumePhase> {
  const known = new Set([...(await loggedCursors(s)).values()].flat());
  const counters = s.subscribers.map((x) => ({
    duplicates: x.duplicates,
    outOfOrder: x.outOfOrder,
    wrong: x.wrong,
    closes: new Map(x.closes),
  }));
  await steps.before?.();
  let written = 0;
  if (steps.writeFirst) {
    written = await writeChanges(s, changes, label);
  }
  const meter = costMeter(s.service.child.pid as number);
  const t0 = performance.now();
  await steps.start();
  if (!steps.writeFirst) {
    written = await writeChanges(s, changes, label);
  }
  const cursors = await loggedCursors(s);
  const expected = s.subscribers.map((x) =>
    (cursors.get(x.meetingId) ?? []).filter((cursor) => !known.has(cursor)),
  );
  const total = expected.reduce((n, list) => n + list.length, 0);
  const receivedOf = (i: number) =>
    (expected[i] as string[]).filter((c) => s.subscribers[i]?.arrivals.has(c)).length;
  const deadline = performance.now() + RESUME.catchUpMs;
  let delivered = 0;
  while (performance.now() < deadline) {
    delivered = s.subscribers.reduce((n, _x, i) => n + receivedOf(i), 0);
    status(`resume · ${label}: ${fmt(delivered)} of ${fmt(total)} events delivered…`);
    if (delivered === total) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cost = meter.stop();
  const caughtUp = s.subscribers.map((x, i) => {
    const list = expected[i] as string[];
    const times = list.map((c) => x.arrivals.get(c));
    return times.every((t) => t !== undefined)
      ? Math.max(t0, ...(times as number[])) - t0
      : Number.NaN;
  });
  const closes: Record<string, number> = {};
  s.subscribers.forEach((x, i) => {
    for (const [code, n] of x.closes) {
      const extra = n - (counters[i]?.closes.get(code) ?? 0);
      if (extra > 0) {
        closes[String(code)] = (closes[String(code)] ?? 0) + extra;
      }
    }
  });
  const sum = (of: (x: Subscriber, i: number) => number) =>
    s.subscribers.reduce((n, x, i) => n + of(x, i), 0);
  const all = caughtUp.every((t) => Number.isFinite(t));
  const result: ResumePhase = {
    changes: written,
    expected: total,
    delivered,
    missing: total - delivered,
    duplicates: sum((x, i) => x.duplicates - (counters[i]?.duplicates ?? 0)),
    outOfOrder: sum((x, i) => x.outOfOrder - (counters[i]?.outOfOrder ?? 0)),
    wrong: sum((x, i) => x.wrong - (counters[i]?.wrong ?? 0)),
    seconds: all ? Math.max(...caughtUp) / 1000 : Number.NaN,
    caughtUp: Float64Array.from(caughtUp.filter((t) => Number.isFinite(t))).sort(),
    closes,
    cost,
  };
  status(
    `resume · ${label}: ${fmt(result.delivered)} of ${fmt(total)} events, all caught up in ` +
      `${Number.isFinite(result.seconds) ? `${result.seconds.toFixed(1)} s` : '– (some never did)'}` +
      `; ${result.missing} missed, ${result.duplicates} twice` +
      (closes['1013'] ? `; ${closes['1013']} sockets closed for not keeping up` : ''),
    true,
  );
  return result;
}

/** The two phases' steps: cut the listener as the writes begin; resume after writes made away. */
export function listenerCut(s: Stage): Parameters<typeof phase>[2] {
  return {
    start: async () => {
      await terminateListener(s.dbUrl);
    },
    writeFirst: false,
  };
}

function clientsResume(s: Stage): Parameters<typeof phase>[2] {
  return {
    before: async () => {
      await Promise.all(s.subscribers.map((x) => x.leave()));
      await untilActive(s.service, 0, 'down');
    },
    start: () => {
      for (const x of s.subscribers) {
        x.open();
      }
    },
    writeFirst: true,
  };
}

export interface ResumeRun {
  subscribers: number;
  meetings: number;
  connectSeconds: number;
  listenerCut: ResumePhase;
  clientsResume: ResumePhase;
  /** The service's largest RSS over the run (bytes). */
  peakRss: number;
}

/** Both phases on a service started here (of `root`, if given). */
export async function timeResume(
  dbUrl: string,
  perMeeting: number,
  build: { root?: string; name?: string } = {},
): Promise<ResumeRun> {
  const s = await stage(dbUrl, dbUrl, { logLevel: 'warn', ...build });
  const rss = sampleRss(s.service.child.pid as number);
  try {
    log(
      `  resume: ${s.subscribers.length} subscribers connected in ${s.connectSeconds.toFixed(1)} s`,
    );
    const changes = { perMeeting, meetings: s.meetings.length };
    const cut = await phase(s, 'listener cut', listenerCut(s), changes);
    const back = await phase(s, 'clients resume', clientsResume(s), changes);
    return {
      subscribers: s.subscribers.length,
      meetings: s.meetings.length,
      connectSeconds: s.connectSeconds,
      listenerCut: cut,
      clientsResume: back,
      peakRss: rss.stop(),
    };
  } finally {
    rss.stop();
    await unstage(s);
  }
}
