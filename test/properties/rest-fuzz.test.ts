import fc from 'fast-check';
import type { RouteSpec } from '../../rest/route';
import { routes } from '../../rest/routes';
import { testDatabaseKind } from '../helpers/test-database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { describeRequest, fuzzSeed, kinds, restProblems, runsOf, ViolationLog } from './contract';
import { fuzzQueryValue, percentEncode, wireSafe } from './fuzz-values';
import { closeRawAgent, parseJson, rawRequest, type RawResponse } from './raw-http';
import { type FuzzFocus, type RestCase, restCaseArb, type RestWorld } from './rest-arbitraries';
import { rowCounts, type RowCounts } from './rows';

/**
 * Every route of the REST table, fed malformed bodies, odd query strings, hostile path segments and
 * bad credentials: each answer must keep the contract (status, body shape, no leak), and no rejected
 * request may leave a row behind. FUZZ_SEED=<n> replays a run; FUZZ_SCALE=<x> scales the case counts.
 */
describe('the REST facade under fuzzing', () => {
  const seed = fuzzSeed();
  let t: TestApp;
  let world: RestWorld;
  let before: RowCounts;
  let cases = 0;
  // What the accepted requests should have written, request by request.
  const expected = { users: 0, meetings: 0, participants: 0 };
  let follows = new Set<string>();
  // Answers by operation and status, to show how deep the generated cases reached.
  const answered = new Map<string, number>();

  beforeAll(async () => {
    t = await startTestApp();
    const [owner, guest, outsider, ...others] = await t.seed.users(6);
    const meeting = await t.seed.meeting(owner!).inviting(guest!).create();
    const login = await rawRequest(t.url, {
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner!.email, password: owner!.password }),
    });
    world = {
      owner: owner!,
      guest: guest!,
      outsider: outsider!,
      others,
      meetingId: meeting.id,
      refreshToken: (parseJson(login.text) as { refresh_token: string }).refresh_token,
    };
    before = await rowCounts(t);
    follows = new Set(before.follows);
  }, 120_000);

  afterAll(async () => {
    const statuses = [...answered.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, n]) => `${key}×${n}`)
      .join(', ');
    console.log(
      `rest-fuzz: ${cases} generated cases run on ${testDatabaseKind} (seed ${seed}; FUZZ_SEED=${seed} replays)\nanswers: ${statuses}`,
    );
    closeRawAgent();
    await t?.close();
  });

  /** Keeps the model of what accepted requests wrote in step with the answers. */
  function account(c: RestCase, response: RawResponse): void {
    if (response.status < 200 || response.status >= 300) {
      return;
    }
    const body = parseJson(response.text) as Record<string, unknown> | undefined;
    const operation = typeof c.route.operation === 'string' ? c.route.operation : 'Token';
    const target = (): string => {
      const segment = c.request.path.split('?')[0]!.split('/').filter(Boolean);
      const encoded =
        c.route.path.includes('/follow/follow/') || c.route.path.includes('/follow/unfollow/')
          ? segment[4]
          : segment[3];
      try {
        return decodeURIComponent(encoded ?? '').toLowerCase();
      } catch {
        return encoded ?? '';
      }
    };
    switch (operation) {
      case 'Register':
        expected.users += 1;
        break;
      case 'CreateMeeting':
        expected.meetings += 1;
        expected.participants += Array.isArray(body?.['participants'])
          ? body['participants'].length
          : 0;
        break;
      case 'AddParticipant':
        expected.participants += 1;
        break;
      case 'Follow':
        follows.add(`${c.caller?.id}>${target()}`);
        break;
      case 'Unfollow':
        follows.delete(`${c.caller?.id}>${target()}`);
        break;
    }
  }

  async function check(c: RestCase, log: ViolationLog): Promise<RawResponse | null> {
    cases += 1;
    let response: RawResponse;
    try {
      response = await rawRequest(t.url, c.request);
    } catch (error) {
      log.record(
        `${c.route.method.toUpperCase()} ${c.route.path} → no answer`,
        [String(error)],
        describeRequest(c.request),
        '',
      );
      return null;
    }
    const operation = typeof c.route.operation === 'string' ? c.route.operation : 'Token';
    const key = `${operation} ${response.status}`;
    answered.set(key, (answered.get(key) ?? 0) + 1);
    const problems = restProblems(response, {
      successStatus: c.route.response.status,
      oauth: c.route.errorStyle === 'oauth',
    });
    const declaredMethod = c.request.method === c.route.method.toUpperCase();
    const success = response.status >= 200 && response.status < 300;
    if (success && !c.route.public && declaredMethod && c.caller === null) {
      problems.push('a protected route succeeded without a valid bearer token');
    }
    if (problems.length > 0) {
      const body = parseJson(response.text) as { errors?: unknown; error?: unknown } | undefined;
      const code =
        typeof body?.errors === 'string'
          ? body.errors
          : typeof body?.error === 'string'
            ? body.error
            : typeof body?.errors === 'object'
              ? 'VALIDATION'
              : '';
      log.record(
        `${c.request.method} ${c.route.path} → ${response.status} ${code}: ${kinds(problems)}`,
        problems,
        describeRequest(c.request),
        response.text,
      );
    }
    if (declaredMethod) {
      account(c, response);
    }
    return response;
  }

  async function fuzz(
    focus: FuzzFocus,
    runs: number,
    only?: (route: RouteSpec) => boolean,
  ): Promise<string> {
    const log = new ViolationLog();
    const table = routes.filter(only ?? (() => true));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...table).chain((route) => restCaseArb(world, route, focus)),
        async (c) => {
          await check(c, log);
        },
      ),
      { numRuns: runsOf(runs), seed, endOnFailure: true },
    );
    return log.report(seed);
  }

  it('answers malformed, oversized and mistyped bodies with a contract status and body', async () => {
    expect(await fuzz({ body: true }, 1050)).toBe('');
  }, 600_000);

  it('answers odd query strings with a contract status and body', async () => {
    expect(await fuzz({ query: true }, 525)).toBe('');
  }, 600_000);

  it('answers path segments that are not ids (NUL, dot-segments, bad encodings, very long) within the contract', async () => {
    expect(await fuzz({ path: true }, 525, (route) => route.path.includes(':'))).toBe('');
  }, 600_000);

  it('answers missing, malformed and foreign credentials and undeclared methods within the contract', async () => {
    expect(await fuzz({ auth: true, method: true }, 375)).toBe('');
  }, 600_000);

  it('keeps the contract when every part of the request is fuzzed at once', async () => {
    expect(await fuzz({ body: true, query: true, path: true, auth: true, method: true }, 525)).toBe(
      '',
    );
  }, 600_000);

  it('creates a meeting whatever the letter case of the user ids it names', async () => {
    const log = new ViolationLog();
    const route = routes.find((r) => r.operation === 'CreateMeeting')!;
    const refused: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(world.others, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }),
        async (invited, pick, upper) => {
          // Any letter case is a valid UUID; the same user may be invited and appointed.
          const cased = (id: string): string =>
            [...id].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
          const appointed = invited[pick % invited.length]!.id;
          const body = JSON.stringify({
            meeting: {
              title: 'Case-blind sync',
              start_time: new Date(Date.now() + 86_400_000).toISOString(),
              location: 'Room 42, HQ',
              appointed_by: cased(appointed),
              assigned_to: appointed,
            },
            participants: invited.map((user) => ({ user_id: user.id })),
          });
          const request = {
            method: 'POST',
            path: '/api/v1/meeting/create',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${world.owner.token}`,
            },
            body,
          };
          const response = await check({ route, caller: world.owner, request }, log);
          if (response?.status !== 201 && refused.length < 3) {
            refused.push(`${response?.status} ${response?.text} ← ${describeRequest(request)}`);
          }
        },
      ),
      { numRuns: runsOf(15), seed },
    );
    expect({ violations: log.report(seed), refused }).toEqual({ violations: '', refused: [] });
  }, 600_000);

  it('answers paths outside the table with 404 NOT_FOUND', async () => {
    const log = new ViolationLog();
    const notFound: RouteSpec = {
      ...routes[0]!,
      path: '/*',
      public: true,
      response: { ...routes[0]!.response, status: 404 },
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fuzzQueryValue, fc.string({ unit: 'binary', maxLength: 20 }).map(percentEncode)),
          { minLength: 1, maxLength: 5 },
        ),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        async (segments, method) => {
          const path = wireSafe(`/api/v1/${segments.join('/')}`);
          await check(
            {
              route: notFound,
              caller: null,
              request: { method, path, headers: { authorization: `Bearer ${world.owner.token}` } },
            },
            log,
          );
        },
      ),
      { numRuns: runsOf(150), seed },
    );
    expect(log.report(seed)).toBe('');
  }, 600_000);

  it('leaves no row behind for a rejected request, and exactly one for each accepted one', async () => {
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
