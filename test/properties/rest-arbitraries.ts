import fc from 'fast-check';
import type { RouteSpec } from '../../rest/route';
import type { SeededUser } from '../helpers/seed';
import { formWire, jsonWire, malformedWire, multipartWire, type WireBody } from './bodies';
import {
  emailLike,
  fuzzJsonValue,
  fuzzQueryValue,
  percentBytes,
  percentEncode,
  UNKNOWN_ID,
  wireSafe,
} from './fuzz-values';
import { INJECTED, mutate, mutationArb } from './mutations';
import type { RawRequest } from './raw-http';

/** What the REST fuzzer knows of the database it runs against. */
export interface RestWorld {
  owner: SeededUser;
  guest: SeededUser;
  outsider: SeededUser;
  others: SeededUser[];
  meetingId: string;
  refreshToken: string;
}

/** One generated REST case: the route it aims at and the request as sent. */
export interface RestCase {
  route: RouteSpec;
  request: RawRequest;
  /** Which user the bearer token names, when it is a valid one. */
  caller: SeededUser | null;
}

const users = (world: RestWorld): SeededUser[] => [
  world.owner,
  world.guest,
  world.outsider,
  ...world.others,
];

const operationName = (route: RouteSpec): string =>
  typeof route.operation === 'string' ? route.operation : 'Token';

// ---------------------------------------------------------------------------------------------
// Authorization

/** A valid token of a known user, no header, or a header that is wrong in some way. */
export function authArb(
  world: RestWorld,
  fuzz: boolean,
): fc.Arbitrary<[string | null, SeededUser | null]> {
  const valid = fc
    .constantFrom(world.owner, world.guest, world.outsider)
    .map((user): [string | null, SeededUser | null] => [`Bearer ${user.token}`, user]);
  if (!fuzz) {
    return fc.oneof(
      { weight: 6, arbitrary: valid },
      { weight: 1, arbitrary: fc.constant<[null, null]>([null, null]) },
    );
  }
  const token = world.owner.token;
  const bad = fc.oneof(
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Bearer  ',
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -4)}`,
      `Bearer ${token.split('.').slice(0, 2).join('.')}.`,
      `Bearer ${world.refreshToken}`,
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIwIn0.',
      `Bearer ${'x'.repeat(6000)}`,
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      `Token ${token}`,
      `${token}`,
      `Bearer ${token} ${token}`,
      `Bearer\t${token}`,
      'Bearer ====',
      'Bearer %00',
      'Bearer \u00ff\u00fe',
    ),
    fc
      .string({ unit: 'binary-ascii', maxLength: 80 })
      .map((s) => `Bearer ${s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '')}`),
    fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
  );
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: fc.constant<[null, null]>([null, null]) },
    { weight: 1, arbitrary: fc.constant<[string, SeededUser]>([`bearer ${token}`, world.owner]) },
    { weight: 4, arbitrary: bad.map((header): [string, null] => [header, null]) },
  );
}

// ---------------------------------------------------------------------------------------------
// Path parameters

function sensibleSegments(world: RestWorld, param: string): string[] {
  const ids = users(world).map((user) => user.id);
  switch (param) {
    case 'meeting_id':
      return [
        world.meetingId,
        world.meetingId,
        world.meetingId.toUpperCase(),
        UNKNOWN_ID,
        world.owner.id,
      ];
    case 'user_id':
      return [...ids, ids[0]!.toUpperCase(), UNKNOWN_ID, world.meetingId];
    case 'account':
      return [
        ...users(world).map((user) => user.account),
        world.guest.account.toUpperCase(),
        'nobody-here',
      ];
    default:
      return [UNKNOWN_ID];
  }
}

const RAW_SEGMENTS = [
  '%00',
  `${UNKNOWN_ID}%00`,
  `${UNKNOWN_ID}%0A`,
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  '%2f..%2f..%2fetc%2fpasswd',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  '%20',
  '+',
  ';',
  '@',
  ':',
  '~',
  '%3Bselect%201',
  'requests',
  'index',
  'create',
  'me',
  'search',
  'null',
  'undefined',
];

/** A path segment for a parameter: sensible ids, or anything at all (encoded or raw). */
function segmentArb(world: RestWorld, param: string, fuzz: boolean): fc.Arbitrary<string> {
  const sensible = fc.constantFrom(...sensibleSegments(world, param)).map(percentEncode);
  if (!fuzz) {
    return sensible;
  }
  const injected = fc
    .tuple(fc.constantFrom(...sensibleSegments(world, param)), INJECTED, fc.nat())
    .map(([value, text, at]) =>
      percentEncode(
        `${value.slice(0, at % (value.length + 1))}${text}${value.slice(at % (value.length + 1))}`,
      ),
    );
  return fc.oneof(
    { weight: 2, arbitrary: sensible },
    { weight: 2, arbitrary: injected },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    {
      weight: 2,
      arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(percentEncode),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 16 }).map(percentBytes) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 6000 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fuzzQueryValue.filter((value) => value.length > 0) },
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings

const QUERY_FIELDS: Record<string, string[]> = {
  SearchUsers: ['q', 'skip', 'limit'],
  Following: ['skip', 'limit'],
  Followers: ['skip', 'limit'],
  MyMeetings: ['skip', 'limit'],
  MeetingRequests: ['skip', 'limit'],
};

function sensibleQuery(route: RouteSpec): fc.Arbitrary<string> {
  const fields = QUERY_FIELDS[operationName(route)] ?? [];
  return fc
    .record({
      q: fc.constantFrom('user', 'Test', 'example', 'fuzz', 'zz'),
      skip: fc.nat({ max: 5 }),
      limit: fc.integer({ min: 1, max: 100 }),
      keep: fc.subarray(fields),
    })
    .map(({ keep, ...values }) =>
      keep
        .map(
          (field) => `${field}=${percentEncode(String(values[field as 'q' | 'skip' | 'limit']))}`,
        )
        .join('&'),
    );
}

/** Query strings with repeated keys, bracket keys, odd numbers, empty values and bad encodings. */
function fuzzQuery(route: RouteSpec): fc.Arbitrary<string> {
  const fields = QUERY_FIELDS[operationName(route)] ?? ['skip', 'limit'];
  const key = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...fields, 'q', 'skip', 'limit') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'limit[]',
        'skip[]',
        'q[]',
        'limit[a]',
        'q[0]',
        'user_id',
        'meeting_id',
        '__proto__',
        'constructor',
        'hasOwnProperty',
        '',
        '%',
        '%zz',
        '%00',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }).map(percentEncode) },
  );
  const plainEntry = fc
    .tuple(key, fuzzQueryValue, fc.nat({ max: 9 }))
    .map(([k, v, style]) => (style === 0 ? k : `${k}=${v}`));
  // A search text that passes validation with a character inside that may not reach SQL intact.
  const injectedQ = fc
    .tuple(fc.constantFrom('user', 'Test', 'example'), INJECTED)
    .map(([q, text]) => `q=${percentEncode(`${q}${text}`)}`);
  const entry = fc.oneof({ weight: 5, arbitrary: plainEntry }, { weight: 1, arbitrary: injectedQ });
  return fc
    .tuple(
      fc.array(entry, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('&', '&', '&', '&&', ';', '&amp;'),
    )
    .map(([entries, separator]) => entries.join(separator));
}

// ---------------------------------------------------------------------------------------------
// Bodies

const futureIso = (days: number): string =>
  new Date(Date.now() + (days + 1) * 86_400_000).toISOString();

/** A body the route would accept (or nearly: a taken email, a repeated participant). */
function sensibleValue(world: RestWorld, route: RouteSpec): fc.Arbitrary<unknown> {
  const suffix = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
    minLength: 4,
    maxLength: 10,
  });
  const everyone = users(world);
  const guests = [world.guest, world.outsider, ...world.others];
  switch (operationName(route)) {
    case 'Register':
      return fc
        .tuple(suffix, fc.boolean())
        .chain(([s, taken]) => emailLike(`fz${s}`).map((email) => ({ s, taken, email })))
        .map(({ s, taken, email }) => ({
          name: `Fuzz User ${s}`,
          account: taken ? world.guest.account : `fz${s}`,
          email,
          password: 'correct horse battery',
          password_confirm: 'correct horse battery',
        }));
    case 'Login':
      return fc
        .constantFrom(world.owner, world.guest)
        .map((user) => ({ email: user.email, password: user.password }));
    case 'Token':
      return fc.oneof(
        fc.constant({
          grant_type: 'password',
          username: world.owner.email,
          password: world.owner.password,
        }),
        fc.constant({
          grant_type: 'password',
          username: world.guest.account,
          password: world.guest.password,
        }),
        fc.constant({ grant_type: 'refresh_token', refresh_token: world.refreshToken }),
        fc.constant({ refresh_token: world.refreshToken }),
        fc.constant({ grant_type: 'client_credentials' }),
      );
    case 'CreateMeeting':
      return fc
        .record({
          s: suffix,
          days: fc.nat({ max: 400 }),
          invited: fc.shuffledSubarray(guests, { minLength: 1, maxLength: 4 }),
          type: fc.option(
            fc.constantFrom(
              'all-hands',
              'one-on-one',
              'team-meeting',
              'standup',
              'project-meeting',
            ),
          ),
          url: fc.option(fc.constant('https://meet.example.com/abc')),
          appointed: fc.option(fc.constantFrom(...everyone)),
          status: fc.option(fc.constantFrom('new', 'accepted', 'declined')),
        })
        .map(({ s, days, invited, type, url, appointed, status }) => ({
          meeting: {
            title: `Fuzz meeting ${s}`,
            start_time: futureIso(days),
            location: 'Room 42, HQ',
            ...(type ? { type } : {}),
            ...(url ? { location_url: url } : {}),
            ...(appointed ? { appointed_by: appointed.id, assigned_to: appointed.id } : {}),
          },
          participants: invited.map((user) => ({
            user_id: user.id,
            ...(status ? { status } : {}),
          })),
        }));
    case 'AddParticipant':
      return fc
        .tuple(
          fc.constantFrom(...everyone),
          fc.option(fc.constantFrom('new', 'accepted', 'declined')),
        )
        .map(([user, status]) => ({ user_id: user.id, ...(status ? { status } : {}) }));
    default:
      return fc.constantFrom<unknown>({}, { note: 'bodies are ignored here' });
  }
}

/** A value for the route's body: sensible, with one to three fields broken, or anything at all. */
function bodyValue(world: RestWorld, route: RouteSpec, fuzz: boolean): fc.Arbitrary<unknown> {
  const sensible = sensibleValue(world, route);
  if (!fuzz) {
    return sensible;
  }
  return fc.oneof(
    { weight: 2, arbitrary: sensible },
    {
      weight: 6,
      arbitrary: fc
        .tuple(sensible, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
        .map(([value, mutations]) => mutate(value, mutations)),
    },
    { weight: 1, arbitrary: fuzzJsonValue },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  );
}

/** The value on the wire in a form the route may or may not accept. */
function wireArb(world: RestWorld, route: RouteSpec, fuzz: boolean): fc.Arbitrary<WireBody> {
  return bodyValue(world, route, fuzz).chain((value) => {
    const plain =
      route.body === 'form'
        ? fc.oneof(jsonWire(value), formWire(value), multipartWire(value))
        : jsonWire(value);
    if (!fuzz) {
      return route.body === 'none'
        ? fc.constant<WireBody>({ headers: {}, payload: undefined })
        : route.body === 'form'
          ? fc.oneof(
              jsonWire(value).map((wire) => ({
                ...wire,
                headers: { 'content-type': 'application/json' },
              })),
              formWire(value).map((wire) => ({
                ...wire,
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
              })),
            )
          : jsonWire(value).map((wire) => ({
              ...wire,
              headers: { 'content-type': 'application/json' },
            }));
    }
    return fc.oneof(
      { weight: 5, arbitrary: plain },
      { weight: 1, arbitrary: formWire(value) },
      { weight: 1, arbitrary: multipartWire(value) },
      { weight: 3, arbitrary: malformedWire(value) },
      { weight: 1, arbitrary: fc.constant<WireBody>({ headers: {}, payload: undefined }) },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Whole requests

/** Which parts of a request are fuzzed; the others are sensible. */
export interface FuzzFocus {
  body?: boolean;
  query?: boolean;
  path?: boolean;
  auth?: boolean;
  /** Also try methods the route does not declare. */
  method?: boolean;
}

/** A request to one route of the table, fuzzed where the focus says. */
export function restCaseArb(
  world: RestWorld,
  route: RouteSpec,
  focus: FuzzFocus,
): fc.Arbitrary<RestCase> {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  return fc
    .record({
      segments: fc.tuple(...params.map((param) => segmentArb(world, param, focus.path ?? false))),
      query: focus.query
        ? fc.oneof(
            { weight: 4, arbitrary: fuzzQuery(route) },
            { weight: 1, arbitrary: sensibleQuery(route) },
          )
        : route.method === 'get'
          ? sensibleQuery(route)
          : fc.constant(''),
      body:
        route.method === 'get' && !focus.body
          ? fc.constant<WireBody>({ headers: {}, payload: undefined })
          : wireArb(world, route, focus.body ?? false),
      auth: authArb(world, focus.auth ?? false),
      method: focus.method
        ? fc.constantFrom(
            route.method.toUpperCase(),
            route.method.toUpperCase(),
            'PUT',
            'PATCH',
            'DELETE',
            route.method === 'get' ? 'POST' : 'GET',
          )
        : fc.constant(route.method.toUpperCase()),
    })
    .map(({ segments, query, body, auth, method }) => {
      let index = 0;
      const path = wireSafe(
        `/api/v1${route.path.replace(/:\w+/g, () => segments[index++] ?? '')}${query ? `?${query}` : ''}`,
      );
      const [authorization, caller] = auth;
      return {
        route,
        caller: route.public ? null : caller,
        request: {
          method,
          path,
          headers: {
            accept: 'application/json',
            ...body.headers,
            ...(authorization !== null ? { authorization } : {}),
          },
          body: body.payload,
        },
      };
    });
}
