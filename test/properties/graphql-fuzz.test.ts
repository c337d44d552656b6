import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { testDatabaseKind } from '../helpers/test-database';
import { describeRequest, fuzzSeed, kinds, leaksIn, runsOf, ViolationLog } from './contract';
import { type GraphQLCase, graphqlCaseArb, type GraphQLWorld } from './graphql-arbitraries';
import { closeRawAgent, parseJson, rawRequest, type RawResponse } from './raw-http';
import { rowCounts, type RowCounts } from './rows';

/** Codes whose messages quote the client's own document (so its words are not leaks). */
const ECHOING_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);

/** Codes that say the server failed; the database is up all along, so bad input caused them. */
const SERVER_CODES = new Set(['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE']);

interface GraphQLErrorShape {
  message?: unknown;
  path?: unknown;
  extensions?: Record<string, unknown>;
}

/** The problems of one GraphQL answer: a 5xx, a server-side error code, or a leak. */
function graphqlProblems(response: RawResponse): { problems: string[]; code: string } {
  const problems: string[] = [];
  if (response.status >= 500) {
    problems.push(`status ${response.status}`);
  }
  const body = parseJson(response.text) as
    | { errors?: unknown; data?: unknown; error?: unknown }
    | undefined;
  if (response.text.length > 0 && body === undefined) {
    if (/json/i.test(String(response.headers['content-type']))) {
      problems.push('body declared JSON is not JSON');
    }
    const leaks = leaksIn(response.text, false).filter((leak) => leak !== 'SQL');
    if (leaks.length > 0) {
      problems.push(`non-JSON body leaks: ${leaks.join(', ')}`);
    }
    return { problems, code: 'NON_JSON' };
  }
  if (typeof body?.errors === 'string') {
    // The HTTP layer's contract body (413, 415, malformed JSON).
    return { problems, code: body.errors };
  }
  const errors = Array.isArray(body?.errors) ? (body.errors as GraphQLErrorShape[]) : [];
  let first = '';
  for (const error of errors) {
    const code = String(error.extensions?.['code'] ?? 'NO_CODE');
    first ||= code;
    if (SERVER_CODES.has(code)) {
      problems.push(`error code ${code}`);
    }
    // Input is judged at the root field; a field inside a result that fails is the server's fault
    // (the operation may well have written its rows already).
    if (Array.isArray(error.path) && error.path.length > 1 && code !== 'UNAUTHENTICATED') {
      problems.push(`result field ${error.path.join('.')} failed (${code})`);
    }
    if (error.extensions && ('stacktrace' in error.extensions || 'exception' in error.extensions)) {
      problems.push('error carries a stack trace');
    }
    const message = String(error.message ?? '');
    const echoes = ECHOING_CODES.has(code) || message.startsWith('Syntax Error:');
    const leaks = leaksIn(message, false).filter((leak) => !echoes || leak === 'JS error');
    if (leaks.length > 0) {
      problems.push(`error message leaks (${leaks.join(', ')}): ${message.slice(0, 120)}`);
    }
  }
  return { problems, code: first };
}

/**
 * The GraphQL endpoint, fed random and hostile documents and fuzzed variables over POST and GET:
 * never a 5xx, never a server-side error code for bad input, never a leak, and no row written by
 * an operation that failed.
 */
describe('the GraphQL endpoint under fuzzing', () => {
  const seed = fuzzSeed();
  let t: TestApp;
  let world: GraphQLWorld;
  let before: RowCounts;
  let cases = 0;
  const expected = { users: 0, meetings: 0, participants: 0 };
  let follows = new Set<string>();
  // Outcomes by root field (`ok` or the first error code), to show how deep the cases reached.
  const answered = new Map<string, number>();

  beforeAll(async () => {
    // With the answer cache on in the PostgreSQL project (off, the default, on the embedded one):
    // a kept answer goes through Apollo's pipeline, whatever the request (a fuzz case found an
    // unknown operation name answered 500 by it).
    t = await startTestApp({ RESPONSE_CACHE: testDatabaseKind === 'postgres' ? 'on' : 'off' });
    const [owner, guest, outsider, ...others] = await t.seed.users(6);
    const meeting = await t.seed.meeting(owner!).inviting(guest!).create();
    const tokens = await t.gql.data<{ login: { tokens: { refreshToken: string } } }>(
      'mutation ($u: String!, $p: String!) { login(input: { username: $u, password: $p }) { tokens { refreshToken } } }',
      { u: owner!.email, p: owner!.password },
    );
    world = {
      owner: owner!,
      guest: guest!,
      outsider: outsider!,
      others,
      meetingId: meeting.id,
      refreshToken: tokens.login.tokens.refreshToken,
    };
    before = await rowCounts(t);
    follows = new Set(before.follows);
  }, 120_000);

  afterAll(async () => {
    const outcomes = [...answered.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, n]) => `${key}×${n}`)
      .join(', ');
    console.log(
      `graphql-fuzz: ${cases} generated cases run on ${testDatabaseKind} (seed ${seed}; FUZZ_SEED=${seed} replays)\noutcomes: ${outcomes}`,
    );
    closeRawAgent();
    await t?.close();
  });

  /** Keeps the model of what succeeded operations wrote in step with the answers. */
  function account(c: GraphQLCase, response: RawResponse): void {
    const data = (parseJson(response.text) as { data?: Record<string, unknown> } | undefined)?.data;
    const result = c.field ? data?.[c.field] : undefined;
    if (result === undefined || result === null || c.field === null) {
      return;
    }
    switch (c.field) {
      case 'register':
        expected.users += 1;
        break;
      case 'createMeeting': {
        expected.meetings += 1;
        const participants = (result as { meeting?: { participants?: unknown[] } }).meeting
          ?.participants;
        expected.participants += participants?.length ?? 0;
        break;
      }
      case 'addParticipant':
        expected.participants += 1;
        break;
      case 'follow': {
        const { follow } = result as { follow: { followerId: string; followingId: string } };
        follows.add(`${follow.followerId}>${follow.followingId}`);
        break;
      }
      case 'unfollow':
        follows.delete(`${c.caller?.id}>${String(c.variables?.['userId']).toLowerCase()}`);
        break;
    }
  }

  it('never answers a document, a variable or a transport with a 5xx, a server error or a leak', async () => {
    const log = new ViolationLog();
    await fc.assert(
      fc.asyncProperty(graphqlCaseArb(world), async (c) => {
        cases += 1;
        let response: RawResponse;
        try {
          response = await rawRequest(t.url, c.request);
        } catch (error) {
          log.record(
            `${c.request.method} /graphql → no answer`,
            [String(error)],
            describeRequest(c.request),
            '',
          );
          return;
        }
        const { problems, code } = graphqlProblems(response);
        const key = `${c.field ?? 'document'} ${response.status} ${code || 'ok'}`;
        answered.set(key, (answered.get(key) ?? 0) + 1);
        if (problems.length > 0) {
          log.record(
            `${c.request.method} /graphql ${c.field ?? 'document'} → ${response.status} ${code}: ${kinds(problems)}`,
            problems,
            describeRequest(c.request),
            response.text,
          );
        }
        account(c, response);
      }),
      { numRuns: runsOf(1500), seed },
    );
    expect(log.report(seed)).toBe('');
  }, 600_000);

  it('leaves no row behind for a failed operation, and exactly one for each succeeded one', async () => {
    const after = await rowCounts(t);
    expect({
      users: after.users,
      meetings: after.meetings,
      participants: after.participants,
      follows: [...after.follows].sort(),
    }).toEqual({
      users: before.users + expected.users,
      meetings: before.meetings + expected.meetings,
      participants: before.participants + expected.participants,
      follows: [...follows].sort(),
    });
  });
});
