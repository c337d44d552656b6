import { randomBytes } from 'node:crypto';
import { request } from './traffic';

// The soak's users and the mix of operations they run: weighted REST and GraphQL reads and writes
// over meetings the run created itself.

const PASSWORD = 'soak-password-1';

interface Actor {
  id: string;
  account: string;
  email: string;
  token: string;
}

interface TrackedMeeting {
  id: string;
  owner: Actor;
  participants: Actor[];
}

export const actors: Actor[] = [];
const meetings: TrackedMeeting[] = [];
const MAX_TRACKED_MEETINGS = 400;
const runTag = `sk${randomBytes(3).toString('hex')}`;
let registered = 0;

export const pick = <T>(list: readonly T[]): T =>
  list[Math.floor(Math.random() * list.length)] as T;

function others(actor: Actor, count: number): Actor[] {
  const pool = actors.filter((candidate) => candidate.id !== actor.id);
  const chosen: Actor[] = [];
  while (chosen.length < count && pool.length > 0) {
    chosen.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0] as Actor);
  }
  return chosen;
}

async function registerUser(
  op: string,
): Promise<{ id: string; account: string; email: string } | null> {
  registered += 1;
  const account = `${runTag}u${registered}`;
  const reply = await request(op, 'POST', '/api/v1/auth/register', {
    json: {
      name: `Soak user ${registered}`,
      account,
      email: `${account}@example.test`,
      password: PASSWORD,
      password_confirm: PASSWORD,
    },
    expected: [201],
  });
  return reply?.status === 201
    ? (reply.body as { id: string; account: string; email: string })
    : null;
}

async function login(op: string, email: string): Promise<string | null> {
  const reply = await request(op, 'POST', '/api/v1/auth/login', {
    json: { email, password: PASSWORD },
  });
  return reply?.status === 200 ? (reply.body as { access_token: string }).access_token : null;
}

export async function setupUsers(count: number): Promise<void> {
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(
    Array.from({ length: Math.min(4, count) }, async () => {
      while (queue.shift() !== undefined) {
        const user = await registerUser('setup: register');
        const token = user ? await login('setup: login', user.email) : null;
        if (user && token) {
          actors.push({ ...user, token });
        }
      }
    }),
  );
  if (actors.length < 4) {
    throw new Error(`could only set up ${actors.length} users`);
  }
}

const GRAPHQL_NESTED = `query Soak {
  me { id account followingCount followersCount }
  myMeetings(limit: 10) {
    id title status owner { id name }
    participants { status user { id account } }
  }
  meetingRequests(limit: 10) { id status meeting { id title owner { account } } }
  following(limit: 10) { count data { following { account } } }
}`;

/** A participant of a tracked meeting approves or declines it. */
function answerInvitation(action: 'approve' | 'decline'): () => Promise<void> {
  return async () => {
    const meeting = meetings.length > 0 ? pick(meetings) : null;
    if (meeting && meeting.participants.length > 0) {
      // 409 MEETING_CLOSED: cancelled meanwhile — expected.
      await request(
        `POST /meeting/{id}/${action}`,
        'POST',
        `/api/v1/meeting/${meeting.id}/${action}`,
        {
          token: pick(meeting.participants).token,
          expected: [200, 409],
        },
      );
    }
  };
}

const operations: Array<[weight: number, name: string, run: (actor: Actor) => Promise<void>]> = [
  [
    10,
    'GET /user/search',
    async (actor) => {
      const q = pick(actors).account.slice(0, 6 + Math.floor(Math.random() * 4));
      await request('GET /user/search', 'GET', `/api/v1/user/search?q=${q}&limit=10`, {
        token: actor.token,
      });
    },
  ],
  [
    8,
    'GET /user/me',
    (actor) => void0(request('GET /user/me', 'GET', '/api/v1/user/me', { token: actor.token })),
  ],
  [
    4,
    'GET /user/{account}',
    (actor) =>
      void0(
        request('GET /user/{account}', 'GET', `/api/v1/user/${pick(actors).account}`, {
          token: actor.token,
        }),
      ),
  ],
  [
    6,
    'POST /follow/follow',
    (actor) =>
      void0(
        request('POST /follow/follow', 'POST', `/api/v1/follow/follow/${others(actor, 1)[0]?.id}`, {
          token: actor.token,
        }),
      ),
  ],
  [
    4,
    'POST /follow/unfollow',
    (actor) =>
      void0(
        request(
          'POST /follow/unfollow',
          'POST',
          `/api/v1/follow/unfollow/${others(actor, 1)[0]?.id}`,
          { token: actor.token },
        ),
      ),
  ],
  [
    5,
    'GET /follow/following',
    (actor) =>
      void0(
        request('GET /follow/following', 'GET', '/api/v1/follow/following?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [
    6,
    'POST /meeting/create',
    async (actor) => {
      const invited = others(actor, 1 + Math.floor(Math.random() * 3));
      const reply = await request('POST /meeting/create', 'POST', '/api/v1/meeting/create', {
        token: actor.token,
        json: {
          meeting: {
            title: `Soak meeting ${Math.floor(Math.random() * 1e6)}`,
            start_time: new Date(Date.now() + 86_400_000 * (1 + Math.random() * 30)).toISOString(),
            location: 'Room 101, soak floor',
          },
          participants: invited.map((user) => ({ user_id: user.id })),
        },
        expected: [201],
      });
      if (reply?.status === 201) {
        meetings.push({
          id: (reply.body as { id: string }).id,
          owner: actor,
          participants: invited,
        });
        if (meetings.length > MAX_TRACKED_MEETINGS) {
          meetings.splice(0, meetings.length - MAX_TRACKED_MEETINGS);
        }
      }
    },
  ],
  [
    4,
    'POST /meeting/{id}/participants/add',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      const candidate = meeting
        ? others(meeting.owner, actors.length).find(
            (user) => !meeting.participants.some((p) => p.id === user.id),
          )
        : undefined;
      if (!meeting || !candidate) {
        return;
      }
      // 409: cancelled meanwhile (every invitee declined), or a concurrent add of the same user.
      const reply = await request(
        'POST /meeting/{id}/participants/add',
        'POST',
        `/api/v1/meeting/${meeting.id}/participants/add`,
        { token: meeting.owner.token, json: { user_id: candidate.id }, expected: [200, 409] },
      );
      if (reply?.status === 200 && !meeting.participants.some((p) => p.id === candidate.id)) {
        meeting.participants.push(candidate);
      }
    },
  ],
  [
    10,
    'GET /meeting/{id}',
    async () => {
      const meeting = meetings.length > 0 ? pick(meetings) : null;
      if (meeting) {
        const viewer =
          Math.random() < 0.5 ? meeting.owner : pick([meeting.owner, ...meeting.participants]);
        await request('GET /meeting/{id}', 'GET', `/api/v1/meeting/${meeting.id}`, {
          token: viewer.token,
        });
      }
    },
  ],
  [
    8,
    'GET /meeting/requests',
    (actor) =>
      void0(
        request('GET /meeting/requests', 'GET', '/api/v1/meeting/requests?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [
    4,
    'GET /meeting/index',
    (actor) =>
      void0(
        request('GET /meeting/index', 'GET', '/api/v1/meeting/index?limit=20', {
          token: actor.token,
        }),
      ),
  ],
  [5, 'POST /meeting/{id}/approve', answerInvitation('approve')],
  [2, 'POST /meeting/{id}/decline', answerInvitation('decline')],
  [
    10,
    'POST /graphql (nested)',
    (actor) =>
      void0(
        request('POST /graphql (nested)', 'POST', '/graphql', {
          token: actor.token,
          json: { query: GRAPHQL_NESTED },
        }),
      ),
  ],
  [1, 'POST /auth/login', (actor) => void0(login('POST /auth/login', actor.email))],
  [1, 'POST /auth/register', () => void0(registerUser('POST /auth/register'))],
];

/** Awaits a promise and drops its value. */
async function void0(promise: Promise<unknown>): Promise<void> {
  await promise;
}

const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);

export function pickOperation(): (actor: Actor) => Promise<void> {
  let roll = Math.random() * totalWeight;
  for (const [weight, , run] of operations) {
    roll -= weight;
    if (roll < 0) {
      return run;
    }
  }
  return (operations[0] as (typeof operations)[number])[2];
}
