import { Follow } from '../../src/modules/follow/follow.entity';
import { Meeting } from '../../src/modules/meeting/meeting.entity';
import { Participant } from '../../src/modules/meeting/participants/participant.entity';
import { User } from '../../src/modules/user/user.entity';
import type { GraphQLErrorBody } from '../helpers/graphql-client';
import { RestClient, type RestResponse } from '../helpers/rest-client';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** Who calls: nobody, or a user standing in one relation to the meeting under test. */
export type Caller = 'anonymous' | 'stranger' | 'participant' | 'owner' | 'admin' | 'superuser';

/** A caller with an account. */
export type Member = Exclude<Caller, 'anonymous'>;

export const CALLERS: readonly Caller[] = [
  'anonymous',
  'stranger',
  'participant',
  'owner',
  'admin',
  'superuser',
];

/** How a test name speaks of a caller. */
export const callerPhrase: Record<Caller, string> = {
  anonymous: 'an anonymous caller',
  stranger: 'a stranger',
  participant: 'a participant',
  owner: 'the owner',
  admin: 'an admin',
  superuser: 'a superuser',
};

/** A running service with one user per role: the owner's meetings invite the participant. */
export interface World {
  t: TestApp;
  rest: RestClient;
  users: Record<Member, SeededUser>;
}

/** Starts the service and seeds a stranger, a participant, an owner, an admin and a superuser. */
export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const t = await startTestApp(env);
  const rest = new RestClient(t.url);
  const [stranger, participant, owner, admin, superuser] = (await t.seed.users(5)) as [
    SeededUser,
    SeededUser,
    SeededUser,
    SeededUser,
    SeededUser,
  ];
  await t.seed.update(admin, { roles: 'admin' as never });
  await t.seed.update(superuser, { isSuperuser: true });
  return { t, rest, users: { stranger, participant, owner, admin, superuser } };
}

/** The token a caller sends, if any. */
export const tokenOf = (world: World, caller: Caller): string | undefined =>
  caller === 'anonymous' ? undefined : world.users[caller].token;

/** A fresh pending meeting of the owner inviting the participant (status new). */
export function freshMeeting(world: World, title = 'Authz review'): Promise<SeededMeeting> {
  return world.t.seed
    .meeting(world.users.owner)
    .titled(title)
    .inviting(world.users.participant)
    .create();
}

/** What the database holds about one meeting: the row and every participant row. */
export interface MeetingState {
  status: string;
  ownerId: string;
  title: string;
  location: string;
  startTime: string;
  updatedAt: string;
  participants: Array<{ id: string; userId: string; status: string; updatedAt: string }>;
}

export async function meetingState(t: TestApp, meetingId: string): Promise<MeetingState> {
  const em = t.instance.database.orm.em.fork();
  const meeting = await em.findOneOrFail(Meeting, { id: meetingId });
  const participants = await em.find(
    Participant,
    { meetingId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return {
    status: meeting.status,
    ownerId: meeting.ownerId,
    title: meeting.title,
    location: meeting.location,
    startTime: meeting.startTime.toISOString(),
    updatedAt: meeting.updatedAt.toISOString(),
    participants: participants.map((p) => ({
      id: p.id,
      userId: p.userId,
      status: p.status,
      updatedAt: p.updatedAt.toISOString(),
    })),
  };
}

/** How many rows each table holds: a refused request must not add or remove any. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const em = t.instance.database.orm.em.fork();
  return {
    users: await em.count(User, {}),
    meetings: await em.count(Meeting, {}),
    participants: await em.count(Participant, {}),
    follows: await em.count(Follow, {}),
  };
}

/** Whether `follower` follows `following`, as stored. */
export async function follows(t: TestApp, follower: string, following: string): Promise<boolean> {
  const em = t.instance.database.orm.em.fork();
  return (await em.count(Follow, { followerId: follower, followingId: following })) > 0;
}

/** A GraphQL request with raw headers, for tokens the client helper would not send. */
export async function graphqlWithHeaders(
  t: TestApp,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<{ status: number; data?: unknown; errors?: GraphQLErrorBody[] }> {
  const response = await fetch(t.gql.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: GraphQLErrorBody[] };
  return { status: response.status, ...body };
}

/** `is_superuser` → `isSuperuser`, deeply, so REST and GraphQL answers compare alike. */
export function camelize(value: unknown): unknown {
  if (Array.isArray(value)) {
    // Array.from (not map) builds the copy in this realm, whatever realm parsed the JSON.
    return Array.from(value as unknown[], camelize);
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
        key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
        camelize(inner),
      ]),
    );
  }
  return value;
}

/** Status, challenge and body of a REST answer together, so a failure shows all three. */
export const restOutcome = (response: RestResponse) => ({
  status: response.status,
  challenge: response.headers.get('www-authenticate'),
  body: response.body,
});

export const NOT_AUTHENTICATED_CHALLENGE = 'Bearer realm="api"';
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="api", error="invalid_token"';

/** An id no record has. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** An ISO date-time `hours` from now. */
export const inHours = (hours: number): string =>
  new Date(Date.now() + hours * 3_600_000).toISOString();

/** Signs `user` in with their password (REST) and answers the refresh token of the new session. */
export async function signIn(world: World, user: SeededUser): Promise<string> {
  const login = await world.rest.post<{ refresh_token: string }>('/auth/login', {
    json: { email: user.email, password: user.password },
  });
  if (login.status !== 200) {
    throw new Error(`${user.account} cannot sign in: ${login.status}`);
  }
  return login.body.refresh_token;
}
