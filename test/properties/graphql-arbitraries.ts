import fc from 'fast-check';
import type { SeededUser } from '../helpers/seed';
import { deepArrays, emailLike, fuzzJsonValue, percentEncode, UNKNOWN_ID } from './fuzz-values';
import { mutate, mutationArb } from './mutations';
import type { RawRequest } from './raw-http';

/** What the GraphQL fuzzer knows of the database it runs against. */
export interface GraphQLWorld {
  owner: SeededUser;
  guest: SeededUser;
  outsider: SeededUser;
  others: SeededUser[];
  meetingId: string;
  refreshToken: string;
}

/** Stands for `[[[…]]]` of the given depth: JSON.stringify cannot write that deep by itself. */
const DEEP = '__deep_arrays__:';

/** JSON text of a body, with the deep-nesting placeholders written out. */
export const bodyJson = (body: unknown): string =>
  JSON.stringify(body).replace(new RegExp(`"${DEEP}(\\d+)"`, 'g'), (_, depth: string) =>
    deepArrays(Number(depth)),
  );

/** One operation of the schema, written as a client would, with sensible variables. */
interface Operation {
  /** The root field, which is also where the result sits in `data`. */
  field: string;
  mutation: boolean;
  document: string;
  variables: (world: GraphQLWorld) => fc.Arbitrary<Record<string, unknown>>;
}

/** One generated GraphQL case. */
export interface GraphQLCase {
  request: RawRequest;
  /** The root field when the document is one known operation (for the write model). */
  field: string | null;
  variables: Record<string, unknown> | null;
  caller: SeededUser | null;
}

const suffix = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
  minLength: 4,
  maxLength: 10,
});

const everyone = (world: GraphQLWorld): SeededUser[] => [
  world.owner,
  world.guest,
  world.outsider,
  ...world.others,
];

const page = fc.record({ skip: fc.nat({ max: 3 }), limit: fc.integer({ min: 1, max: 100 }) });

const OPERATIONS: Operation[] = [
  {
    field: 'register',
    mutation: true,
    document: `mutation Register($name: String!, $account: String!, $email: String!, $password: String!, $passwordConfirm: String!) {
  register(input: { name: $name, account: $account, email: $email, password: $password, passwordConfirm: $passwordConfirm }) {
    user { id account email }
  }
}`,
    variables: (world) =>
      fc
        .tuple(suffix, fc.boolean())
        .chain(([s, taken]) => emailLike(`gq${s}`).map((email) => ({ s, taken, email })))
        .map(({ s, taken, email }) => ({
          name: `Fuzz User ${s}`,
          account: taken ? world.guest.account : `gq${s}`,
          email,
          password: 'correct horse battery',
          passwordConfirm: 'correct horse battery',
        })),
  },
  {
    field: 'login',
    mutation: true,
    document: `mutation Login($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { tokenType expiresIn } }
}`,
    variables: (world) =>
      fc
        .constantFrom(world.owner, world.guest)
        .map((user) => ({ username: user.account, password: user.password })),
  },
  {
    field: 'refreshToken',
    mutation: true,
    document: `mutation Refresh($refreshToken: String!) {
  refreshToken(input: { refreshToken: $refreshToken }) { tokens { tokenType } }
}`,
    variables: (world) => fc.constant({ refreshToken: world.refreshToken }),
  },
  {
    field: 'follow',
    mutation: true,
    document: `mutation Follow($userId: UUID!) {
  follow(input: { userId: $userId }) { follow { id followerId followingId } }
}`,
    variables: (world) => fc.constantFrom(...everyone(world)).map((user) => ({ userId: user.id })),
  },
  {
    field: 'unfollow',
    mutation: true,
    document: `mutation Unfollow($userId: UUID!) { unfollow(input: { userId: $userId }) { unfollowed } }`,
    variables: (world) => fc.constantFrom(...everyone(world)).map((user) => ({ userId: user.id })),
  },
  {
    field: 'createMeeting',
    mutation: true,
    document: `mutation Create($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) {
    meeting { id status participants { id userId status } }
  }
}`,
    variables: (world) =>
      fc
        .record({
          s: suffix,
          hours: fc.integer({ min: 1, max: 5000 }),
          invited: fc.shuffledSubarray([world.guest, world.outsider, ...world.others], {
            minLength: 1,
            maxLength: 4,
          }),
          type: fc.option(fc.constantFrom('ALL_HANDS', 'STANDUP', 'ONE_ON_ONE')),
          status: fc.option(fc.constantFrom('NEW', 'ACCEPTED', 'DECLINED')),
        })
        .map(({ s, hours, invited, type, status }) => ({
          meeting: {
            title: `Fuzz meeting ${s}`,
            startTime: new Date(Date.now() + hours * 3_600_000).toISOString(),
            location: 'Room 42, HQ',
            ...(type ? { type } : {}),
          },
          participants: invited.map((user) => ({ userId: user.id, ...(status ? { status } : {}) })),
        })),
  },
  {
    field: 'addParticipant',
    mutation: true,
    document: `mutation Add($meetingId: UUID!, $userId: UUID!, $status: ParticipantStatus) {
  addParticipant(input: { meetingId: $meetingId, userId: $userId, status: $status }) {
    participant { id status }
  }
}`,
    variables: (world) =>
      fc
        .tuple(fc.constantFrom(...everyone(world)), fc.constantFrom('NEW', 'ACCEPTED', 'DECLINED'))
        .map(([user, status]) => ({ meetingId: world.meetingId, userId: user.id, status })),
  },
  ...['approveMeeting', 'declineMeeting'].map(
    (field): Operation => ({
      field,
      mutation: true,
      document: `mutation Answer($meetingId: UUID!) {
  ${field}(input: { meetingId: $meetingId }) { meeting { id status } }
}`,
      variables: (world) => fc.constant({ meetingId: world.meetingId }),
    }),
  ),
  {
    field: 'meeting',
    mutation: false,
    document: `query Meeting($meetingId: UUID!) {
  meeting(meetingId: $meetingId) { id title status owner { id name } participants { id status user { account } } }
}`,
    variables: (world) => fc.constant({ meetingId: world.meetingId }),
  },
  {
    field: 'user',
    mutation: false,
    document: `query User($account: String!) { user(account: $account) { id name followingCount followersCount } }`,
    variables: (world) =>
      fc.constantFrom(...everyone(world)).map((user) => ({ account: user.account })),
  },
  {
    field: 'searchUsers',
    mutation: false,
    document: `query Search($q: String!, $skip: Int, $limit: Int) { searchUsers(q: $q, skip: $skip, limit: $limit) { count data { id name } } }`,
    variables: () =>
      fc
        .tuple(fc.constantFrom('user', 'Test', 'example', 'fuzz'), page)
        .map(([q, p]) => ({ q, ...p })),
  },
  ...['following', 'followers'].map(
    (field): Operation => ({
      field,
      mutation: false,
      document: `query List($skip: Int, $limit: Int) { ${field}(skip: $skip, limit: $limit) { count data { id follower { id } following { id } } } }`,
      variables: () => page,
    }),
  ),
  ...['myMeetings', 'meetingRequests'].map(
    (field): Operation => ({
      field,
      mutation: false,
      document: `query Mine($skip: Int, $limit: Int) { ${field}(skip: $skip, limit: $limit) { id } }`,
      variables: () => page,
    }),
  ),
  {
    field: 'followStatus',
    mutation: false,
    document: `query Status($userId: UUID!) { followStatus(userId: $userId) { isFollowing isFollowedBy isMutual } }`,
    variables: (world) => fc.constantFrom(...everyone(world)).map((user) => ({ userId: user.id })),
  },
  {
    field: 'me',
    mutation: false,
    document: `query Me { me { id account } }`,
    variables: () => fc.constant({}),
  },
];

/** A valid operation with its variables sensible, broken field by field, huge, or deep. */
function operationCase(world: GraphQLWorld): fc.Arbitrary<{ op: Operation; variables: unknown }> {
  return fc.constantFrom(...OPERATIONS).chain((op) =>
    op.variables(world).chain((sensible) =>
      fc
        .oneof(
          { weight: 2, arbitrary: fc.constant<unknown>(sensible) },
          {
            weight: 6,
            arbitrary: fc
              .array(mutationArb, { minLength: 1, maxLength: 3 })
              .map((mutations) => mutate(sensible, mutations)),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom(1000, 10_000).map((size) => ({
              ...sensible,
              participants: Array.from({ length: size }, () => ({ userId: UNKNOWN_ID })),
            })),
          },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(1000, 10_000)
              .map((depth) => ({ ...sensible, meeting: `${DEEP}${depth}` })),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom<unknown>(null, [], 'variables', 42, [sensible]),
          },
        )
        .map((variables) => ({ op, variables })),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Documents built from the schema's query fields, with aliases, fragments and directives

const QUERY_SELECTIONS = [
  'me { id name }',
  'me { ...UserBits }',
  'me { ... on User { id } }',
  'user(account: "ACCOUNT") { id account }',
  'searchUsers(q: "us") { count data { id } }',
  'searchUsers(q: "us", limit: 1000) { count }',
  'searchUsers(q: "%_\\\\") { count }',
  'following { count data { follower { id } } }',
  'followers(limit: -1) { count }',
  'followStatus(userId: "USER_ID") { isMutual }',
  'meeting(meetingId: "MEETING_ID") { id participants { user { id } meeting { id } } }',
  'meeting(meetingId: "not-a-uuid") { id }',
  'myMeetings { id owner { id } }',
  'meetingRequests(skip: 2147483648) { id }',
  '__typename',
  '__schema { queryType { name } }',
  '__type(name: "User") { fields { name } }',
  'nope { id }',
  'me { id nope }',
  'me',
  'me { id @include(if: true) name @skip(if: true) }',
  'me { id @include(if: $flag) }',
  'me { id @unknownDirective }',
  'me { id @deprecated }',
  'user(account: $undefinedVariable) { id }',
  'user(account: 42) { id }',
  'user(account: null) { id }',
  'user(account: ["a"]) { id }',
  'user(account: {a: 1}) { id }',
  'user(account: "\\u0000") { id }',
];

const aliasName = fc.oneof(
  fc.constantFrom('a', 'b', 'me', 'user', '_', '__typename', 'data'),
  fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,12}$/),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }),
);

/** A query built from real fields: aliased (often clashing), with fragments and directives. */
function builtDocument(world: GraphQLWorld): fc.Arbitrary<string> {
  const selection = fc
    .tuple(fc.option(aliasName), fc.constantFrom(...QUERY_SELECTIONS))
    .map(([alias, field]) =>
      `${alias ? `${alias}: ` : ''}${field}`
        .replace('ACCOUNT', world.guest.account)
        .replace('USER_ID', world.guest.id)
        .replace('MEETING_ID', world.meetingId),
    );
  const fragments = fc.constantFrom(
    'fragment UserBits on User { id account }',
    'fragment UserBits on User { ...UserBits }',
    'fragment UserBits on Meeting { id }',
    'fragment UserBits on Nope { id }',
    'fragment A on User { ...B } fragment B on User { ...A }',
    '',
    '',
  );
  return fc
    .record({
      selections: fc.array(selection, { minLength: 1, maxLength: 25 }),
      fragment: fragments,
      header: fc.constantFrom(
        '',
        'query ',
        'query Q ',
        'query Q($flag: Boolean!) ',
        'subscription S ',
        'mutation M ',
      ),
    })
    .map(({ selections, fragment, header }) => `${header}{ ${selections.join(' ')} } ${fragment}`);
}

/** Documents that stress the parser and the validation limits: depth, tokens, aliases, size. */
const stressDocument: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 8000 }).map((n) => `{${'a{'.repeat(n)}b${'}'.repeat(n)}}`),
  fc
    .integer({ min: 1, max: 40 })
    .map(
      (n) =>
        `{ meeting(meetingId: "${UNKNOWN_ID}") { ${'participants { meeting { '.repeat(n)}id${' } }'.repeat(n)} } }`,
    ),
  fc.integer({ min: 1, max: 8000 }).map((n) => `{ user(account: ${deepArrays(n)}) { id } }`),
  fc
    .integer({ min: 1, max: 8000 })
    .map((n) => `{ user(account: ${'{a:'.repeat(n)}1${'}'.repeat(n)}) { id } }`),
  fc
    .integer({ min: 1, max: 300 })
    .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { id }`).join(' ')} }`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `{ me { ${'id '.repeat(n)}} }`),
  fc.integer({ min: 1, max: 300 }).map((n) => `{ me ${'@include(if: true) '.repeat(n)}{ id } }`),
  fc.constantFrom(100_000, 900_000).map((n) => `{ user(account: "${'x'.repeat(n)}") { id } }`),
  fc.constantFrom(1_100_000, 2_000_000).map((n) => `{ me { id } } # ${'x'.repeat(n)}`),
  fc
    .integer({ min: 1, max: 2000 })
    .map(
      (n) =>
        `query Q(${Array.from({ length: n }, (_, i) => `$v${i}: String`).join(', ')}) { me { id } }`,
    ),
);

/** Anything in the `query` slot: random text, text that is nearly GraphQL, built and stress documents. */
function documentArb(world: GraphQLWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...OPERATIONS.map((op) => op.document)),
          fc.nat(),
          fc.nat({ max: 5 }),
        )
        .map(
          ([doc, at, cut]) =>
            `${doc.slice(0, at % doc.length)}${doc.slice((at % doc.length) + cut)}`,
        ),
    },
    { weight: 5, arbitrary: builtDocument(world) },
    { weight: 3, arbitrary: stressDocument },
  );
}

// ---------------------------------------------------------------------------------------------
// Transports

function authArb(world: GraphQLWorld): fc.Arbitrary<[Record<string, string>, SeededUser | null]> {
  return fc.oneof(
    fc
      .constantFrom(world.owner, world.guest, world.outsider)
      .map((user): [Record<string, string>, SeededUser | null] => [
        { authorization: `Bearer ${user.token}` },
        user,
      ]),
    fc.constant<[Record<string, string>, null]>([{}, null]),
    fc
      .constantFrom('Bearer nope', 'Basic abc', `Bearer ${world.refreshToken}`, 'Bearer ')
      .map((authorization): [Record<string, string>, null] => [{ authorization }, null]),
  );
}

type Transport = 'post-json' | 'get' | 'get-unsafe' | 'post-odd';

function encodeRequest(
  transport: Transport,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  oddity: number,
): RawRequest {
  const json = bodyJson(body);
  // A request line past Node's 16 KiB header limit only tests Node: long documents go by POST.
  if ((transport === 'get' || transport === 'get-unsafe') && json.length < 4000) {
    const query = Object.entries(body)
      .filter(([, value]) => value !== undefined)
      .map(
        ([key, value]) =>
          `${key}=${percentEncode(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`,
      )
      .join('&');
    return {
      method: 'GET',
      path: `/graphql?${query}`,
      headers: {
        accept: 'application/json',
        ...(transport === 'get' ? { 'apollo-require-preflight': 'true' } : {}),
        ...headers,
      },
    };
  }
  if (transport !== 'post-odd') {
    return {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: json,
    };
  }
  const odd: Array<[string | undefined, string | Buffer]> = [
    ['text/plain', json],
    ['application/graphql', String(body['query'])],
    ['application/x-www-form-urlencoded', `query=${percentEncode(String(body['query']))}`],
    ['application/json', `[${json},${json}]`],
    ['application/json', json.slice(0, Math.floor(json.length / 2))],
    ['application/json', '{"query": null}'],
    ['application/json', '{"query": ["{ me { id } }"]}'],
    [
      'application/json',
      `{"query": ${JSON.stringify(body['query'])}, "variables": "{\\"a\\": 1}"}`,
    ],
    [
      'application/json',
      `{"query": ${JSON.stringify(body['query'])}, "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "abc"}}}`,
    ],
    ['application/json', `{"query": ${JSON.stringify(body['query'])}, "operationName": "Nope"}`],
    ['application/json; charset=utf-16', json],
    [undefined, json],
    [
      'application/json',
      Buffer.concat([
        Buffer.from('{"query":"{ me { id } }", "x":"'),
        Buffer.from([0xff, 0xc0, 0xaf]),
        Buffer.from('"}'),
      ]),
    ],
    ['application/json', deepArrays(10_000)],
    ['multipart/form-data; boundary=x', '--x\r\ngarbage'],
  ];
  const [type, payload] = odd[oddity % odd.length]!;
  return {
    method: 'POST',
    path: '/graphql',
    headers: {
      ...(type ? { 'content-type': type } : {}),
      'apollo-require-preflight': 'true',
      ...headers,
    },
    body: payload,
  };
}

/** A GraphQL request: a known operation with fuzzed variables, or any document, on any transport. */
export function graphqlCaseArb(world: GraphQLWorld): fc.Arbitrary<GraphQLCase> {
  const payload = fc.oneof(
    {
      weight: 1,
      arbitrary: operationCase(world).map(({ op, variables }) => ({
        body: { query: op.document, variables } as Record<string, unknown>,
        field: op.field,
        variables:
          typeof variables === 'object' && variables !== null && !Array.isArray(variables)
            ? (variables as Record<string, unknown>)
            : null,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          documentArb(world),
          // Mostly none or an object, so most documents get as far as the parser.
          fc.oneof(
            { weight: 6, arbitrary: fc.constant(null) },
            {
              weight: 3,
              arbitrary: fc.dictionary(
                fc.constantFrom('flag', 'a', 'id', 'undefinedVariable'),
                fuzzJsonValue,
                { maxKeys: 3 },
              ),
            },
            { weight: 1, arbitrary: fuzzJsonValue },
          ),
          fc.option(fc.constantFrom('Q', 'M', 'S', 'Nope', ''), { freq: 4 }),
        )
        .map(([query, variables, operationName]) => ({
          body: {
            query,
            ...(variables !== null ? { variables } : {}),
            ...(operationName !== null ? { operationName } : {}),
          } as Record<string, unknown>,
          field: null,
          variables: null,
        })),
    },
  );
  return fc
    .record({
      payload,
      auth: authArb(world),
      transport: fc.constantFrom<Transport>(
        'post-json',
        'post-json',
        'post-json',
        'post-json',
        'get',
        'get',
        'get-unsafe',
        'post-odd',
      ),
      oddity: fc.nat(),
    })
    .map(({ payload: p, auth: [headers, caller], transport, oddity }) => ({
      request: encodeRequest(transport, p.body, headers, oddity),
      field: p.field,
      variables: p.variables,
      caller,
    }));
}
