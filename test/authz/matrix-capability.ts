import type { RestBody } from '../helpers/rest-client';
import type { SeededMeeting, SeededUser } from '../helpers/seed';
import type { Caller, MeetingState, World } from './authz-fixtures';

/*
 * What a row of the authorization matrix (matrix.test.ts) is made of: the scene a case runs in, the
 * calls, the outcomes and the checks of an allowed call. The rows live in matrix.test.ts and, for
 * the meeting lifecycle and sessions (docs/rest-contract.md §7), in matrix-lifecycle-rows.ts and
 * matrix-session-rows.ts.
 */

/** Everything one case works with: a fresh meeting, and users who are never the caller. */
export interface Scene {
  world: World;
  meeting: SeededMeeting;
  /** A user to add to the meeting. */
  guest: SeededUser;
  /** A user to follow, invite and sign in as; never one of the callers. */
  target: SeededUser;
  /** A refresh token of `target`, shared by every case. */
  refreshToken: string;
  /**
   * A refresh token of a sign-in of `target` made for this case alone, on first use (the same
   * token on every call of one case): for calls that end the session they are given.
   */
  session: () => Promise<string>;
  /** Unique per case, for registrations. */
  n: number;
}

export interface RestCall {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: RestBody;
}

export interface GraphQLCall {
  query: string;
  variables?: Record<string, unknown>;
}

/** What an allowed call must have done, seen from its answer and the database. */
export interface CheckContext {
  caller: Caller;
  /** The caller's account (null for anonymous). */
  user: SeededUser | null;
  /** The answer's root value, camelCase whichever face answered. */
  root: Record<string, unknown>;
  scene: Scene;
  before: MeetingState;
  after: MeetingState;
  face: 'REST' | 'GraphQL';
}

export type Check = (c: CheckContext) => Promise<void> | void;

export type Outcome =
  | { kind: 'allowed'; status: number; note?: string; check?: Check }
  | { kind: 'refused'; status: number; code: string; category: string };

export const refused = (status: number, code: string, category: string): Outcome => ({
  kind: 'refused',
  status,
  code,
  category,
});
export const allowed = (status: number, check?: Check, note?: string): Outcome => ({
  kind: 'allowed',
  status,
  check,
  note,
});

export const NOT_AUTHENTICATED = refused(401, 'NOT_AUTHENTICATED', 'UNAUTHENTICATED');
export const MEETING_HIDDEN = refused(404, 'MEETING_NOT_FOUND', 'NOT_FOUND');
export const ONLY_OWNER_ADDS = refused(403, 'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS', 'FORBIDDEN');
export const NOT_A_PARTICIPANT = refused(403, 'NOT_A_PARTICIPANT', 'FORBIDDEN');
export const OWNER_CANNOT_DECLINE = refused(403, 'OWNER_CANNOT_DECLINE', 'FORBIDDEN');

/** Every signed-in caller gets `outcome`, the anonymous one 401, unless overridden. */
export const forMembers = (
  outcome: Outcome,
  overrides: Partial<Record<Caller, Outcome>> = {},
): Record<Caller, Outcome> => ({
  anonymous: NOT_AUTHENTICATED,
  stranger: outcome,
  participant: outcome,
  owner: outcome,
  admin: outcome,
  superuser: outcome,
  ...overrides,
});

/** A public endpoint: the same for everyone, token or not. */
export const forEveryone = (outcome: Outcome): Record<Caller, Outcome> =>
  forMembers(outcome, { anonymous: outcome });

export const lower = (value: unknown): string => String(value).toLowerCase();

/** The participant rows other than `userId`'s are exactly as they were (status and updatedAt). */
export function othersUnchanged(before: MeetingState, after: MeetingState, userId: string): void {
  const others = (state: MeetingState) => state.participants.filter((p) => p.userId !== userId);
  expect(others(after)).toEqual(others(before));
}

export function rowOf(state: MeetingState, userId: string) {
  return state.participants.find((p) => p.userId === userId);
}

/** One capability of the service, with its REST routes and its GraphQL field. */
export interface Capability {
  /** The verb phrase of the test names: "read the meeting". */
  action: string;
  rest: string[];
  graphql: { operation: 'query' | 'mutation' | 'subscription'; field: string };
  restCall: (scene: Scene) => RestCall;
  /** The GraphQL call; `user` is the caller's account (null for anonymous), for own credentials. */
  graphqlCall: (scene: Scene, user: SeededUser | null) => GraphQLCall | Promise<GraphQLCall>;
  /** For a subscription: makes the event it waits for happen, once it runs. */
  trigger?: (scene: Scene, user: SeededUser | null) => Promise<void>;
  /** Brings the fresh meeting into the state the capability needs, before `before` is taken. */
  prepare?: (scene: Scene) => Promise<void>;
  outcomes: Record<Caller, Outcome>;
}

export const MEETING_ID = '$meetingId: UUID!';
