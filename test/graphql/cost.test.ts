import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from '../../src/modules/meeting/meeting.limits';
import { COST_LIMITS } from '../../src/platform/graphql/cost.settings';
import type { SeededUser } from '../helpers/seed';
import { useLiveClients } from '../helpers/live-client';
import { TEST_REDIS_URL, testRedisReachable } from '../helpers/redis';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Answer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    extensions?: { cost?: { requested: number; actual: number } };
  };
}

interface Budget {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** POSTs an operation as a GraphQL-over-HTTP client would, keeping the status and headers. */
async function post(
  t: TestApp,
  query: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<Answer> {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['body'],
  };
}

/** What remains of the caller's budget, from the RateLimit header (`"cost";r=…;t=…`). */
function remaining(answer: Answer): number | null {
  const match = /^"cost";r=(\d+);t=\d+$/.exec(answer.headers.get('ratelimit') ?? '');
  return match ? Number(match[1]) : null;
}

const DAY_MS = 86_400_000;

/** The widest suggestion: 50 users, 62 days, a slot every 5 minutes. */
function widestInput(userIds: readonly string[]): Record<string, unknown> {
  const from = new Date(Date.now() + DAY_MS);
  return {
    userIds,
    durationMinutes: 30,
    from: from.toISOString(),
    to: new Date(from.getTime() + 62 * DAY_MS).toISOString(),
    stepMinutes: 5,
    first: 50,
  };
}

/** Its cost by the rule the schema states: attendees × slots ÷ 50 + attendees × days. */
const WIDEST_COST = Math.ceil((51 * ((62 * 1440) / 5)) / 50) + 51 * 62;

const suggestions = (aliases: number): string =>
  `query ($input: SuggestMeetingTimesInput!) { ${Array.from(
    { length: aliases },
    (_, i) => `a${i}: suggestMeetingTimes(input: $input) { startTime availableUserIds }`,
  ).join(' ')} }`;

const MY_MEETINGS = `{ myMeetings(limit: 2) { id participants { status user { id name } } } }`;

describe('operation cost', () => {
  let t: TestApp;
  let owner: SeededUser;
  let host: SeededUser;
  let other: SeededUser;
  let userIds: string[];

  beforeAll(async () => {
    t = await startTestApp();
    [owner, host, other] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    userIds = (await t.seed.bulkUsers(50)).map((user) => user.id);
    await t.seed
      .meeting(host)
      .inviting(other, ...userIds.slice(0, 4).map((id) => ({ id })))
      .create();
  });
  afterAll(() => t.close());

  it('refuses the 15-alias widest suggestion before anything runs, with its cost', async () => {
    let answer: Answer | undefined;
    const statements = await t.countQueries(async () => {
      answer = await post(t, suggestions(15), { input: widestInput(userIds) }, owner.token);
    });
    expect(answer?.status).toBe(400);
    expect(answer?.body.data).toBeUndefined();
    expect(answer?.body.errors?.[0]?.extensions).toMatchObject({
      code: 'QUERY_TOO_LARGE',
      reason: 'QUERY_TOO_COSTLY',
      // Each alias its work and the 50 slots it may answer.
      cost: 15 * (WIDEST_COST + 50),
      maxCost: COST_LIMITS.maxQueryCost.default,
    });
    // The caller's token is read (its user); no availability is.
    expect(statements).toBeLessThanOrEqual(1);
  });

  it('runs the widest suggestion alone, and tells what it cost', async () => {
    const answer = await post(t, suggestions(1), { input: widestInput(userIds) }, owner.token);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.extensions?.cost).toMatchObject({
      requested: WIDEST_COST + 50,
      actual: WIDEST_COST + (answer.body.data?.['a0'] as unknown[]).length,
    });
  });

  it('counts lists by their bound before, by what they held after, and refunds the difference', async () => {
    const answer = await post(t, MY_MEETINGS, {}, host.token);
    expect(answer.body.errors).toBeUndefined();
    const meetings = answer.body.data?.['myMeetings'] as Array<{ participants: unknown[] }>;
    const held = meetings.reduce((sum, meeting) => sum + meeting.participants.length, 0);
    const cost = answer.body.extensions?.cost;
    // Each meeting 1, each participant 1 and its user 1: at the cap before, as answered after.
    expect(cost?.requested).toBe(2 + 2 * 2 * DEFAULT_MAX_PARTICIPANTS_PER_MEETING);
    expect(cost?.actual).toBe(meetings.length + 2 * held);
    expect(held).toBe(6);
    // Asked again, it is paid at its measured cost and refunded to what it answered.
    const again = await post(t, MY_MEETINGS, {}, host.token);
    expect(remaining(again)).toBe((remaining(answer) ?? 0) - (cost?.actual ?? 0));
    expect(answer.headers.get('ratelimit-policy')).toBe(
      `"cost";q=${COST_LIMITS.budgetPerMinute.default};w=60`,
    );
    // The body tells the cost alone: the same answer is the same bytes.
    expect(again.body).toEqual(answer.body);
  });

  it('counts what fragments on an interface answered, with or without __typename', async () => {
    const meetings = (
      await post(t, '{ myMeetings(limit: 1) { id participants { id } } }', {}, host.token)
    ).body.data?.['myMeetings'] as Array<{ id: string; participants: unknown[] }>;
    const [meeting] = meetings;
    const held = meeting?.participants.length ?? 0;
    for (const typename of ['__typename', '']) {
      const answer = await post(
        t,
        `query ($ids: [ID!]!) { nodes(ids: $ids) { ${typename}
          ... on Meeting { participants { user { id } } } ... on User { name } } }`,
        { ids: [meeting?.id, host.id] },
        host.token,
      );
      expect(answer.body.errors).toBeUndefined();
      // The two nodes, each participant and its user.
      expect(answer.body.extensions?.cost?.actual).toBe(2 + 2 * held);
    }
  });

  it('shows the costs in the metrics', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(/graphql_operation_cost_total\{measure="requested"\} [1-9]/);
    expect(text).toMatch(/graphql_operation_cost_total\{measure="actual"\} [1-9]/);
    expect(text).toMatch(/graphql_operations_costed_total [1-9]/);
    expect(text).toMatch(/graphql_operations_refused_total\{reason="too_costly"\} [1-9]/);
  });

  it('shows the cost directives in the SDL, and the rules of costs that grow with arguments', async () => {
    const sdl = await (await fetch(`${t.url}/graphql/schema.graphql`)).text();
    expect(sdl).toContain('directive @listSize(');
    expect(sdl).toMatch(/participants: \[Participant!\]! @listSize\(assumedSize: 500\)/);
    expect(sdl).toContain('Cost: attendees × candidate slots');
  });
});

describe('cost budgets', () => {
  /** Two suggestions fit in a minute's budget, a third does not. */
  const env = { MAX_QUERY_COST: String(WIDEST_COST + 50), COST_BUDGET_PER_MINUTE: '50000' };

  async function spendUntilRefused(
    t: TestApp,
    token: string,
    userIds: string[],
  ): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i += 1) {
      answers.push(await post(t, suggestions(1), { input: widestInput(userIds) }, token));
    }
    return answers;
  }

  it('answers 429 with Retry-After and what remains once a caller has spent it; others spend their own', async () => {
    const t = await startTestApp(env);
    try {
      const [heavy, light] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      const userIds = (await t.seed.bulkUsers(50)).map((user) => user.id);
      const [first, second, third] = await spendUntilRefused(t, heavy.token, userIds);
      expect(first?.status).toBe(200);
      expect(second?.status).toBe(200);
      expect(third?.status).toBe(429);
      const refusal = third?.body.errors?.[0]?.extensions;
      expect(refusal).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'COST_BUDGET_SPENT' });
      const budget = refusal?.['budget'] as Budget;
      expect(budget.remaining).toBe(second && remaining(second));
      const retryAfter = Number(third?.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(third?.headers.get('ratelimit')).toBe(
        `"cost";r=${budget.remaining};t=${budget.resetSeconds}`,
      );
      // What remains still pays for a smaller operation: the refused one took nothing.
      const small = await post(t, MY_MEETINGS, {}, heavy.token);
      expect(small.status).toBe(200);
      // Another caller has a budget of their own.
      const other = await post(t, suggestions(1), { input: widestInput(userIds) }, light.token);
      expect(other.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses a caller at once, before reading its operation, once refused 3 times in a row', async () => {
    const t = await startTestApp(env);
    try {
      const [heavy, light] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      const userIds = (await t.seed.bulkUsers(50)).map((user) => user.id);
      const input = { input: widestInput(userIds) };
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        statuses.push((await post(t, suggestions(1), input, heavy.token)).status);
      }
      // Two paid for, three refused after reading them.
      expect(statuses).toEqual([200, 200, 429, 429, 429]);
      let gated: Answer | undefined;
      const statements = await t.countQueries(async () => {
        gated = await post(t, MY_MEETINGS, {}, heavy.token);
      });
      // Now even a small one, answered before its body is read: no statement, not even the
      // caller's.
      expect(statements).toBe(0);
      expect(gated?.status).toBe(429);
      expect(gated?.body.errors?.[0]?.message).toMatch(/refused 3 times in a row/);
      expect(gated?.body.errors?.[0]?.extensions).toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        reason: 'COST_BUDGET_SPENT',
        budget: { limit: 50_000 },
      });
      expect(Number(gated?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(gated?.headers.get('ratelimit')).toMatch(/^"cost";r=\d+;t=\d+$/);
      // Another caller is not.
      expect((await post(t, MY_MEETINGS, {}, light.token)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('is one budget across instances with REDIS_URL', async () => {
    if (!(await testRedisReachable())) {
      return;
    }
    const redis = { ...env, REDIS_URL: TEST_REDIS_URL };
    const a = await startTestApp(redis);
    const b = await startTestApp(redis, {
      database: { kind: 'postgres', url: a.instance.database.url, poolSize: 5 },
    });
    try {
      const [caller] = (await a.seed.users(1)) as [SeededUser];
      const userIds = (await a.seed.bulkUsers(50)).map((user) => user.id);
      const input = { input: widestInput(userIds) };
      expect((await post(a, suggestions(1), input, caller.token)).status).toBe(200);
      expect((await post(b, suggestions(1), input, caller.token)).status).toBe(200);
      const refused = await post(a, suggestions(1), input, caller.token);
      expect(refused.status).toBe(429);
      expect((await post(b, suggestions(1), input, caller.token)).status).toBe(429);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('the cost of subscriptions', () => {
  const connect = useLiveClients();

  it('holds a subscription to MAX_QUERY_COST when it starts; no budget (0) spends nothing', async () => {
    const t = await startTestApp({ MAX_QUERY_COST: '1000', COST_BUDGET_PER_MINUTE: '0' });
    try {
      const [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
      const meeting = await t.seed.meeting(owner).inviting(guest).create();
      // Each event 1, its meeting 1, and up to 500 participants and their users: 1,002.
      const refused = connect(t.url, guest.token).subscribe(
        `subscription ($id: UUID!) {
          meetingEvents(meetingId: $id) { kind meeting { participants { user { name } } } }
        }`,
        { id: meeting.id },
      );
      await refused.finished();
      expect(refused.ended?.error).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({
            code: 'QUERY_TOO_LARGE',
            reason: 'QUERY_TOO_COSTLY',
            cost: 1002,
            maxCost: 1000,
          }),
        }),
      ]);
      const answer = await post(t, '{ myMeetings(limit: 1) { id } }', {}, owner.token);
      expect(answer.body.extensions?.cost).toEqual({ requested: 1, actual: 1 });
      // No budget: nothing to tell of it.
      expect(answer.headers.get('ratelimit')).toBeNull();
    } finally {
      await t.close();
    }
  });
});
