import { createHash } from 'node:crypto';
import { benchUsers, createMeetings, readFixtures, withClient } from '../lib/db';
import { graphqlData } from '../lib/http';
import type { Server } from '../lib/processes';

// The fan-out pass's people, meetings and writes (run/fan-out-pass.ts): writers who each own one
// meeting with two invited guests, a slow guest of the first meeting (round b), the uninvolved
// subscribers (generated users of the seed, who may see none of these meetings), and the
// updateMeeting writes, paced or in a burst.

export const FAN_OUT = {
  /** Writers, each the owner of one meeting. */
  writers: 20,
  /** Guests of each meeting who subscribe ("involved"). */
  guestsPerMeeting: 2,
  rounds: [
    { key: 'a', uninvolved: 100, slow: false },
    { key: 'b', uninvolved: 1_000, slow: true },
  ],
  /** Writes per second of all writers together (each writer an equal share, paced). */
  writesPerSecond: 100,
  /** The write phase (seconds); --quick's. */
  seconds: 60,
  quickSeconds: 10,
  /** How long after the last write the subscribers have to receive everything. */
  drainMs: 5_000,
  /**
   * Writes to the first meeting at the start of each round, a few at a time: in round b, while
   * the slow subscriber does not read, whose queue must overflow before the service's pings to it
   * go unanswered too long (12 s + 12 s).
   */
  burst: 300,
  burstConcurrency: 4,
  /** The pause between the burst (every round begins with it) and the write phase. */
  settleMs: 2_000,
  /** The description of that meeting (its column's largest), which the slow subscriber asks for… */
  descriptionChars: 2_000,
  /** …this many times over, by aliases (the service allows 15): about 30 KB per event. */
  descriptionAliases: 15,
} as const;

export type RoundSpec = (typeof FAN_OUT.rounds)[number];

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

// Accounts of bench users (never of the generated form, see lib/db.ts) holding none of the
// search scenario's texts (an, li, mar, son, kim), so that scenario's answers do not change.
const WRITERS = Array.from({ length: FAN_OUT.writers }, (_, i) => ({
  account: `bench.fo.w${pad(i + 1, 2)}`,
  name: `Bench Fo Writer ${pad(i + 1, 2)}`,
}));
const GUESTS = Array.from({ length: FAN_OUT.writers * FAN_OUT.guestsPerMeeting }, (_, i) => ({
  account: `bench.fo.g${pad(i + 1, 2)}`,
  name: `Bench Fo Guest ${pad(i + 1, 2)}`,
}));
const SLOW = { account: 'bench.fo.slow', name: 'Bench Fo Slow Guest' };

/** Who takes part: ids of the writers, of each meeting's guests, the slow guest, the uninvolved. */
export interface Cast {
  writers: string[];
  /** The guests of meeting i (writer i's). */
  guests: string[][];
  slow: string;
  uninvolved: string[];
}

/** The cast, made where missing (bench users) and read (generated users of the seed). */
export async function castOf(dbUrl: string): Promise<Cast> {
  const most = Math.max(...FAN_OUT.rounds.map((round) => round.uninvolved));
  const ids = await benchUsers(dbUrl, [...WRITERS, ...GUESTS, SLOW]);
  const fixtures = await readFixtures(dbUrl, most);
  if (fixtures.invitees.length < most) {
    throw new Error(`fan-out: only ${fixtures.invitees.length} generated users to subscribe`);
  }
  const guests = ids.slice(WRITERS.length, WRITERS.length + GUESTS.length);
  return {
    writers: ids.slice(0, WRITERS.length),
    guests: WRITERS.map((_, i) =>
      guests.slice(i * FAN_OUT.guestsPerMeeting, (i + 1) * FAN_OUT.guestsPerMeeting),
    ),
    slow: ids[ids.length - 1] as string,
    uninvolved: fixtures.invitees,
  };
}

/** Removes the writers' meetings (their participants go with them). */
export async function cleanupFanOut(dbUrl: string): Promise<void> {
  await withClient(dbUrl, (client) =>
    client.query(
      `delete from "meetings" where "owner_id" in (select "id" from "users" where "account" = any($1))`,
      [WRITERS.map((writer) => writer.account)],
    ),
  );
}

/** A text of `chars` characters that no compression would shrink much (hex of chained hashes). */
function incompressible(chars: number): string {
  let text = '';
  let block = 'fan-out';
  while (text.length < chars) {
    block = createHash('sha256').update(block).digest('hex');
    text += block;
  }
  return text.slice(0, chars);
}

/**
 * A meeting of each writer with its guests (and the slow guest in the first, if `withSlow`),
 * made by SQL so that no change is logged; the first one's description at its largest. Their ids,
 * meeting i writer i's.
 */
export async function makeMeetings(
  dbUrl: string,
  cast: Cast,
  withSlow: boolean,
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, writerId] of cast.writers.entries()) {
    const guests = [...(cast.guests[i] ?? []), ...(withSlow && i === 0 ? [cast.slow] : [])];
    const [id] = await createMeetings(dbUrl, writerId, 1, {
      title: `Bench fan-out meeting ${i + 1}`,
      guests: () => guests,
    });
    ids.push(id as string);
  }
  await withClient(dbUrl, (client) =>
    client.query('update "meetings" set "description" = $2 where "id" = $1', [
      ids[0],
      incompressible(FAN_OUT.descriptionChars),
    ]),
  );
  return ids;
}

const UPDATE =
  'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }';

/** One write as the harness made it: its meeting (index), the title written, when it answered. */
export interface Write {
  meeting: number;
  title: string;
  /** performance.now() when it was sent, and when the whole answer had arrived. */
  sentAt: number;
  answeredAt: number;
  /** Made in the slow subscriber's burst, not in the paced write phase. */
  burst: boolean;
}

/** updateMeeting of one title, as the owner; when it was sent and when its answer arrived. */
async function write(service: Server, token: string, meetingId: string, title: string) {
  const sentAt = performance.now();
  await graphqlData(service.url, token, UPDATE, { input: { meetingId, title } }, 'fan-out write');
  return { sentAt, answeredAt: performance.now() };
}

/**
 * {@link FAN_OUT.burst} writes to meeting `index`, {@link FAN_OUT.burstConcurrency} at a time, as
 * fast as they go (so their changes are logged in no known order among themselves).
 */
export async function burstWrites(
  service: Server,
  token: string,
  meetings: readonly string[],
  index: number,
  round: string,
): Promise<Write[]> {
  const writes: Write[] = [];
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < FAN_OUT.burst) {
      next += 1;
      const title = `Fo ${round} burst #${pad(next, 4)}`;
      const times = await write(service, token, meetings[index] as string, title);
      writes.push({ meeting: index, title, ...times, burst: true });
    }
  };
  await Promise.all(Array.from({ length: FAN_OUT.burstConcurrency }, writer));
  return writes;
}

/**
 * The write phase: each writer updates its own meeting's title at its share of
 * {@link FAN_OUT.writesPerSecond}, each write when its time comes (or at once when the previous
 * answered late: a writer's writes never overlap, so a meeting's changes are logged in the order
 * written), for `seconds`.
 */
export async function pacedWrites(
  service: Server,
  tokens: readonly string[],
  meetings: readonly string[],
  round: string,
  seconds: number,
  progress: (written: number) => void,
): Promise<Write[]> {
  const writers = tokens.length;
  const everyMs = (1000 * writers) / FAN_OUT.writesPerSecond;
  const each = Math.round((seconds * FAN_OUT.writesPerSecond) / writers);
  const writes: Write[] = [];
  const t0 = performance.now();
  const timer = setInterval(() => progress(writes.length), 1_000);
  try {
    await Promise.all(
      tokens.map(async (token, i) => {
        // Writers spread over the interval, not all at its start.
        const offset = (i * everyMs) / writers;
        for (let n = 1; n <= each; n += 1) {
          const due = t0 + offset + (n - 1) * everyMs;
          const wait = due - performance.now();
          if (wait > 0) {
            await new Promise((resolve) => setTimeout(resolve, wait));
          }
          const title = `Fo ${round} w${pad(i + 1, 2)} #${pad(n, 4)}`;
          const times = await write(service, token, meetings[i] as string, title);
          writes.push({ meeting: i, title, ...times, burst: false });
        }
      }),
    );
  } finally {
    clearInterval(timer);
  }
  return writes;
}

/** The cursors of the changes logged for each meeting, in log order, by meeting id. */
export async function loggedCursors(
  dbUrl: string,
  meetings: readonly string[],
): Promise<Map<string, string[]>> {
  const rows = await withClient(dbUrl, (client) =>
    client.query<{ meeting_id: string; cursor: string }>(
      `select "scope_id" as "meeting_id", "tx"::text || '.' || "position"::text as "cursor"
       from "change_log" where "scope_id" = any($1) order by "tx", "position"`,
      [meetings],
    ),
  );
  const byMeeting = new Map<string, string[]>(meetings.map((id) => [id, []]));
  for (const row of rows.rows) {
    byMeeting.get(row.meeting_id)?.push(row.cursor);
  }
  return byMeeting;
}
