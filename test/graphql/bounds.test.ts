import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from '../../src/modules/meeting/meeting.limits';
import { MAX_NODES } from '../../src/platform/graphql/list-size';
import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { useTestApp } from '../helpers/use-test-app';

/** The fan-out of the issue: a meeting's participants' meeting's participants, four deep. */
const fanOut = (aliases: number): string => {
  const one = `meeting(meetingId: $id) { participants { meeting { participants { meeting {
    participants { meeting { participants { id } } } } } } } }`;
  const fields = Array.from({ length: aliases }, (_, i) => `a${i}: ${one}`).join('\n');
  return `query ($id: UUID!) { ${fields} }`;
};

describe('bounded queries', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let meetingId: string;

  beforeAll(async () => {
    const users = await t.seed.users(31);
    owner = users[0] as SeededUser;
    const meeting = await t.seed
      .meeting(owner)
      .inviting(...users.slice(1))
      .create();
    meetingId = meeting.id;
  });

  it('refuses the 15-alias fan-out before it reads anything, with a coded error', async () => {
    let answer: Awaited<ReturnType<TestApp['gql']['request']>> | undefined;
    const statements = await t.countQueries(async () => {
      answer = await t.gql.request(fanOut(15), { id: meetingId }, owner.token);
    });
    expect(answer?.data ?? null).toBeNull();
    expect(answer?.errors?.[0]?.extensions).toMatchObject({
      code: 'QUERY_TOO_LARGE',
      maxNodes: MAX_NODES,
    });
    expect(
      (answer?.errors?.[0]?.extensions as Record<string, unknown> | undefined)?.['nodes'],
    ).toBeGreaterThan(MAX_NODES);
    // Only the caller's token was looked up: the operation itself never ran.
    expect(statements).toBeLessThanOrEqual(1);
  });

  it('refuses a single fan-out too, and keeps health checks answering while refusing', async () => {
    const started = Date.now();
    const [refused, health] = await Promise.all([
      Promise.all(
        Array.from({ length: 10 }, () => t.gql.request(fanOut(15), { id: meetingId }, owner.token)),
      ),
      Promise.all(
        Array.from({ length: 10 }, async () => {
          const sent = Date.now();
          const response = await fetch(`${t.url}/health/readiness`);
          return { status: response.status, ms: Date.now() - sent };
        }),
      ),
    ]);
    for (const answer of refused) {
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_LARGE');
    }
    expect(health.map((check) => check.status)).toEqual(Array(10).fill(204));
    // Reported, not asserted: timings belong to the bench.
    console.log(
      `10 fan-outs of 15 aliases refused in ${Date.now() - started} ms; ` +
        `health checks meanwhile ${health.map((check) => check.ms).join('/')} ms`,
    );
    const single = await t.gql.request(fanOut(1), { id: meetingId }, owner.token);
    expect(single.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_LARGE');
  });

  it('answers what a rich client asks for: a meeting with its participants, slices of lists', async () => {
    const data = await t.gql.data<{ meeting: { participants: unknown[] } }>(
      `query ($id: UUID!) { meeting(meetingId: $id) { participants { user { name } meeting { id } } } }`,
      { id: meetingId },
      owner.token,
    );
    expect(data.meeting.participants).toHaveLength(31);
    await t.gql.data(
      `{ meetings(first: 100) { nodes { participantsConnection(first: 100) { nodes { id } } } } }`,
      {},
      owner.token,
    );
  });

  it("counts connections by their first or last, and a meeting's participants by the cap", async () => {
    const tooMany = await t.gql.request(
      `{ meetings(first: 100) { nodes { participantsConnection(first: 100) {
          nodes { meeting { participantsConnection(first: 100) { totalCount } } } } } } }`,
      {},
      owner.token,
    );
    expect(
      (tooMany.errors?.[0]?.extensions as Record<string, unknown> | undefined)?.['nodes'],
    ).toBe(100 + 100 * 100 + 100 * 100 * 100);
    const lists = await t.gql.request(
      `{ myMeetings(limit: 100) { participants { meeting { participants { id } } } } }`,
      {},
      owner.token,
    );
    expect((lists.errors?.[0]?.extensions as Record<string, unknown> | undefined)?.['nodes']).toBe(
      100 +
        100 * DEFAULT_MAX_PARTICIPANTS_PER_MEETING +
        100 * DEFAULT_MAX_PARTICIPANTS_PER_MEETING ** 2,
    );
  });
  it('counts an operation sized by variables for each request, and one sized in its text alike every time', async () => {
    const sized = `query ($n: Int, $m: Int) { meetings(first: $n) { nodes {
        participantsConnection(first: 100) { nodes { meeting {
          participantsConnection(first: $m) { totalCount } } } } } } }`;
    const nodesOf = (answer: Awaited<ReturnType<TestApp['gql']['request']>>): unknown =>
      (answer.errors?.[0]?.extensions as Record<string, unknown> | undefined)?.['nodes'];
    // The same document, small then large then small again: each request's values count.
    for (const [n, m, refused] of [
      [2, 2, false],
      [100, 100, true],
      [3, 1, false],
      [100, 11, true],
    ] as const) {
      const answer = await t.gql.request(sized, { n, m }, owner.token);
      if (refused) {
        expect(nodesOf(answer)).toBe(n + n * 100 + n * 100 * m);
      } else {
        expect(answer.errors).toBeUndefined();
      }
    }
    // Sized in its text: refused with the same count on every request.
    const fixed = `{ meetings(first: 100) { nodes { participantsConnection(first: 100) {
        nodes { meeting { participantsConnection(first: 100) { totalCount } } } } } } }`;
    for (let request = 0; request < 3; request += 1) {
      expect(nodesOf(await t.gql.request(fixed, {}, owner.token))).toBe(1_010_100);
    }
  });
});
