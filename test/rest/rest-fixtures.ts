import type { RestClient, RestResponse } from '../helpers/rest-client';

/** The exact field names of the spec's records, as they must appear on the wire. */
export const USER_PUBLIC_KEYS = [
  'name',
  'email',
  'account',
  'id',
  'roles',
  'is_active',
  'is_verified',
  'is_superuser',
  'bio',
  'dob',
  'phone',
  'avatar_photo_id',
  'deleted_at',
  'created_at',
  'updated_at',
] as const;

export const PARTICIPANT_PUBLIC_KEYS = [
  'meeting_id',
  'user_id',
  'id',
  'user',
  'status',
  'created_at',
  'updated_at',
] as const;

export const MEETING_PUBLIC_KEYS = [
  'title',
  'owner_id',
  'start_time',
  'location',
  'id',
  'appointed_by',
  'assigned_to',
  'type',
  'status',
  'location_url',
  'created_at',
  'updated_at',
  'participants',
] as const;

export const FOLLOW_ENTRY_KEYS = [
  'id',
  'following_id',
  'user',
  'created_at',
  'updated_at',
] as const;

export const TOKEN_RESPONSE_KEYS = [
  'access_token',
  'refresh_token',
  'token_type',
  'expires_in',
] as const;

/** A record's field names, sorted, for a key-set comparison. */
export const keysOf = (record: unknown): string[] =>
  Object.keys(record as Record<string, unknown>).sort();

export const sortedKeys = (keys: readonly string[]): string[] => [...keys].sort();

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** A lowercase canonical UUID. */
export const aUuid = (): unknown => expect.stringMatching(UUID_PATTERN);
/** An ISO 8601 date-time in UTC, ending in `Z`. */
export const aDateTime = (): unknown => expect.stringMatching(DATE_TIME_PATTERN);

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** A user record on the wire. */
export interface WireUser {
  name: string;
  email: string;
  account: string;
  id: string;
  roles: string;
  is_active: boolean;
  is_verified: boolean;
  is_superuser: boolean;
  bio: string | null;
  dob: string | null;
  phone: string | null;
  avatar_photo_id: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A participant record on the wire. */
export interface WireParticipant {
  meeting_id: string;
  user_id: string;
  id: string;
  user: WireUser;
  status: string;
  created_at: string;
  updated_at: string;
}

/** A meeting record on the wire. */
export interface WireMeeting {
  title: string;
  owner_id: string;
  start_time: string;
  location: string;
  id: string;
  appointed_by: string | null;
  assigned_to: string | null;
  type: string;
  status: string;
  location_url: string | null;
  created_at: string;
  updated_at: string;
  participants: WireParticipant[];
}

/** An element of the following list on the wire. */
export interface WireFollow {
  id: string;
  following_id: string;
  user: WireUser;
  created_at: string;
  updated_at: string;
}

export interface WireTokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

/** The contract's error bodies. */
export type ErrorBody = { errors: string | Record<string, string> };

/** The full expected UserPublic: the defaults of a fresh registration unless overridden. */
export function userPublic(overrides: Partial<Record<keyof WireUser, unknown>> = {}): unknown {
  return {
    name: expect.any(String),
    email: expect.any(String),
    account: expect.any(String),
    id: aUuid(),
    roles: 'user',
    is_active: true,
    is_verified: true,
    is_superuser: false,
    bio: null,
    dob: null,
    phone: null,
    avatar_photo_id: null,
    deleted_at: null,
    created_at: aDateTime(),
    updated_at: aDateTime(),
    ...overrides,
  };
}

/** The full expected ParticipantPublic. */
export function participantPublic(
  overrides: Partial<Record<keyof WireParticipant, unknown>> = {},
): unknown {
  return {
    meeting_id: aUuid(),
    user_id: aUuid(),
    id: aUuid(),
    user: userPublic(),
    status: 'new',
    created_at: aDateTime(),
    updated_at: aDateTime(),
    ...overrides,
  };
}

/** The full expected MeetingPublic. */
export function meetingPublic(
  overrides: Partial<Record<keyof WireMeeting, unknown>> = {},
): unknown {
  return {
    title: expect.any(String),
    owner_id: aUuid(),
    start_time: aDateTime(),
    location: expect.any(String),
    id: aUuid(),
    appointed_by: null,
    assigned_to: null,
    type: 'all-hands',
    status: 'pending',
    location_url: null,
    created_at: aDateTime(),
    updated_at: aDateTime(),
    participants: expect.any(Array),
    ...overrides,
  };
}

/** Asserts the exact key sets of a meeting, its participants and their users. */
export function expectMeetingKeys(meeting: WireMeeting): void {
  expect(keysOf(meeting)).toEqual(sortedKeys(MEETING_PUBLIC_KEYS));
  for (const participant of meeting.participants) {
    expectParticipantKeys(participant);
  }
}

export function expectParticipantKeys(participant: WireParticipant): void {
  expect(keysOf(participant)).toEqual(sortedKeys(PARTICIPANT_PUBLIC_KEYS));
  expect(keysOf(participant.user)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
}

/** A 401 answer must carry the RFC 6750 challenge. */
export function expectNotAuthenticated(response: RestResponse): void {
  expect({
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: response.body,
  }).toEqual({
    status: 401,
    challenge: 'Bearer realm="api"',
    body: { errors: 'NOT_AUTHENTICATED' },
  });
}

export function expectInvalidToken(response: RestResponse): void {
  expect({
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: response.body,
  }).toEqual({
    status: 401,
    challenge: 'Bearer realm="api", error="invalid_token"',
    body: { errors: 'INVALID_TOKEN' },
  });
}

/** Compares status and body together, so a failure shows both. */
export function expectAnswer(response: RestResponse, status: number, body: unknown): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body });
}

export interface Registration {
  name: string;
  account: string;
  email: string;
  password: string;
  password_confirm: string;
}

let registrations = 0;

/** Fresh, valid registration fields (unique account and email). */
export function registration(overrides: Partial<Registration> = {}): Registration {
  registrations += 1;
  const suffix = `${registrations}${Math.random().toString(36).slice(2, 7)}`;
  const account = overrides.account ?? `rest.${suffix}`;
  const password = overrides.password ?? 'Sunrise-Meeting-42';
  return {
    name: `Rest Person ${suffix}`,
    account,
    email: `${account}@example.com`,
    password,
    password_confirm: password,
    ...overrides,
  };
}

/** Registers a user through POST /auth/register, form-encoded as the spec documents. */
export async function registerViaRest(
  rest: RestClient,
  overrides: Partial<Registration> = {},
): Promise<{ input: Registration; response: RestResponse<WireUser> }> {
  const input = registration(overrides);
  const response = await rest.post<WireUser>('/auth/register', {
    form: input as unknown as Record<string, string>,
  });
  return { input, response };
}

/** A user registered and signed in over REST. */
export interface RestUser {
  user: WireUser;
  input: Registration;
  token: string;
  refreshToken: string;
}

export async function signUpViaRest(
  rest: RestClient,
  overrides: Partial<Registration> = {},
): Promise<RestUser> {
  const { input, response } = await registerViaRest(rest, overrides);
  if (response.status !== 201) {
    throw new Error(`registration failed: ${response.status} ${response.text}`);
  }
  const login = await rest.post<WireTokens>('/auth/login', {
    json: { email: input.email, password: input.password },
  });
  if (login.status !== 200) {
    throw new Error(`login failed: ${login.status} ${login.text}`);
  }
  return {
    user: response.body,
    input,
    token: login.body.access_token,
    refreshToken: login.body.refresh_token,
  };
}

/** An ISO date-time `hours` from now. */
export const inHours = (hours: number): string =>
  new Date(Date.now() + hours * 3_600_000).toISOString();

/** The JSON body of POST /meeting/create with valid defaults. */
export function meetingBody(
  participants: ReadonlyArray<string | { user_id: string; status?: string }>,
  meeting: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    meeting: {
      title: 'Roadmap review',
      start_time: inHours(48),
      location: 'Room 7, east wing',
      ...meeting,
    },
    participants: participants.map((p) => (typeof p === 'string' ? { user_id: p } : p)),
  };
}

/** Creates a meeting through POST /meeting/create and returns the created record. */
export async function createMeetingViaRest(
  rest: RestClient,
  token: string,
  participants: ReadonlyArray<string | { user_id: string; status?: string }>,
  meeting: Record<string, unknown> = {},
): Promise<WireMeeting> {
  const response = await rest.post<WireMeeting>(
    '/meeting/create',
    { json: meetingBody(participants, meeting) },
    { token },
  );
  if (response.status !== 201) {
    throw new Error(`meeting creation failed: ${response.status} ${response.text}`);
  }
  return response.body;
}

/** Runs async work in small batches, to seed quickly without flooding the server. */
export async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    const batch = items.slice(start, start + size);
    results.push(...(await Promise.all(batch.map((item, i) => work(item, start + i)))));
  }
  return results;
}

/** The full expected UserPublic of a user seeded with known name, account and email. */
export const publicOf = (user: {
  id: string;
  name: string;
  account: string;
  email: string;
}): unknown =>
  userPublic({ id: user.id, name: user.name, account: user.account, email: user.email });
