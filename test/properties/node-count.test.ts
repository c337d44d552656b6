import fc from 'fast-check';
import { parse } from 'graphql';
import { MAX_NODES } from '../../src/platform/graphql/list-size';
import { countDocumentNodes } from '../../src/platform/graphql/node-limit';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { fuzzSeed, runsOf } from './contract';

/** A small cap, which seeded meetings fill: the count of a meeting's lists is then tight. */
const CAP = 6;

/** What the generated queries refer to. */
interface World {
  meetingIds: string[];
  userIds: string[];
}

type Selection = fc.Arbitrary<string>;

/** Some of the fields, at least one, joined into a selection set. */
const setOf = (...fields: Selection[]): Selection =>
  fc
    .subarray(fields, { minLength: 1 })
    .chain((chosen) => fc.tuple(...chosen))
    .map((parts) => `{ ${parts.join(' ')} }`);

const size = fc.integer({ min: 1, max: 8 });
const answers = fc.option(fc.subarray(['NEW', 'ACCEPTED', 'DECLINED'], { minLength: 1 }), {
  nil: undefined,
});

/** A slice's arguments: first or last (or neither), and some answers. */
const sliceArgs = fc
  .record({
    way: fc.constantFrom('first', 'last', 'none'),
    n: size,
    answers,
  })
  .map(({ way, n, answers: some }) => {
    const args = [
      way === 'none' ? '' : `${way}: ${n}`,
      some ? `answers: [${some.join(', ')}]` : '',
    ].filter(Boolean);
    return args.length > 0 ? `(${args.join(', ')})` : '';
  });

const user = setOf(fc.constant('id'), fc.constant('followingCount'), fc.constant('name'));

function participant(depth: number): Selection {
  const fields = [fc.constant('id status'), user.map((set) => `user ${set}`)];
  if (depth > 0) {
    fields.push(meeting(depth - 1).map((set) => `meeting ${set}`));
  }
  return setOf(...fields);
}

function meeting(depth: number): Selection {
  const fields = [fc.constant('id'), user.map((set) => `owner ${set}`)];
  if (depth > 0) {
    fields.push(participant(depth - 1).map((set) => `participants ${set}`));
    fields.push(
      fc
        .tuple(
          sliceArgs,
          setOf(
            fc.constant('totalCount'),
            fc.constant('pageInfo { hasNextPage endCursor }'),
            participant(depth - 1).map((set) => `nodes ${set}`),
            participant(depth - 1).map((set) => `edges { cursor node ${set} }`),
          ),
        )
        .map(([args, set]) => `participantsConnection${args} ${set}`),
    );
  }
  return setOf(...fields);
}

const follow = setOf(
  fc.constant('id'),
  user.map((set) => `follower ${set}`),
  user.map((set) => `following ${set}`),
);

/** A query of one or two root fields, with lists nested up to three deep. */
const queryOf = (world: World): fc.Arbitrary<string> => {
  const depth = fc.integer({ min: 0, max: 3 });
  const roots: Selection[] = [
    fc
      .tuple(fc.constantFrom(...world.meetingIds), depth)
      .chain(([id, d]) => meeting(d).map((set) => `meeting(meetingId: "${id}") ${set}`)),
    fc
      .tuple(size, depth)
      .chain(([n, d]) => meeting(d).map((set) => `myMeetings(limit: ${n}) ${set}`)),
    fc
      .tuple(size, depth)
      .chain(([n, d]) => meeting(d).map((set) => `meetings(first: ${n}) { nodes ${set} }`)),
    fc
      .tuple(size, depth)
      .chain(([n, d]) =>
        participant(d).map(
          (set) =>
            `invitations(first: ${n}, filter: { answers: [NEW, ACCEPTED, DECLINED], ` +
            `meetingStates: [PENDING, CONFIRMED, CANCELLED, COMPLETED] }) { edges { node ${set} } }`,
        ),
      ),
    fc
      .tuple(size, depth)
      .chain(([n, d]) => participant(d).map((set) => `meetingRequests(limit: ${n}) ${set}`)),
    fc
      .tuple(fc.option(size, { nil: null }), follow)
      .map(([n, set]) => `following(limit: ${n ?? 'null'}) { count data ${set} }`),
    fc.tuple(size, follow).map(([n, set]) => `followers(limit: ${n}) { data ${set} }`),
    fc
      .tuple(fc.subarray([...world.meetingIds, ...world.userIds], { minLength: 1 }), depth)
      .chain(([ids, d]) =>
        meeting(d).map((set) => `nodes(ids: ${JSON.stringify(ids)}) { id ... on Meeting ${set} }`),
      ),
  ];
  return fc
    .array(fc.oneof(...roots), { minLength: 1, maxLength: 2 })
    .map((fields) => `{ ${fields.map((field, index) => `r${index}: ${field}`).join(' ')} }`);
};

/**
 * The records an answer holds: every element of every list, a connection's `edges` and `nodes`
 * being the same records (as the count has them).
 */
function produced(value: unknown): number {
  if (Array.isArray(value)) {
    return value.reduce<number>((total, item) => total + produced(item), value.length);
  }
  if (value === null || typeof value !== 'object') {
    return 0;
  }
  const record = value as Record<string, unknown>;
  const { edges, nodes } = record;
  let total =
    Array.isArray(edges) && Array.isArray(nodes) ? -Math.min(edges.length, nodes.length) : 0;
  for (const field of Object.values(record)) {
    total += produced(field);
  }
  return total;
}

describe('the node limit counts an upper bound of the records a query answers', () => {
  let t: TestApp;
  let owner: SeededUser;
  let world: World;

  beforeAll(async () => {
    t = await startTestApp({ MAX_PARTICIPANTS_PER_MEETING: String(CAP) });
    const people = await t.seed.users(4);
    owner = people[0] as SeededUser;
    const others = people.slice(1);
    const crowd = await t.seed.bulkUsers(3 * CAP);
    const meetingIds: string[] = [];
    // Full meetings, half-full ones, and meetings of others the owner is invited to.
    for (let index = 0; index < 4; index += 1) {
      const guests = crowd.slice(index * 3, index * 3 + (index % 2 === 0 ? CAP - 1 : 2));
      const meeting = await t.seed
        .meeting(owner)
        .inviting(...guests.slice(1))
        .invitingAs('ACCEPTED', ...guests.slice(0, 1))
        .create();
      meetingIds.push(meeting.id);
    }
    for (const [index, other] of others.entries()) {
      const meeting = await t.seed
        .meeting(other)
        .invitingAs(index === 0 ? 'ACCEPTED' : 'NEW', owner)
        .inviting(...crowd.slice(12, 12 + CAP - 2))
        .create();
      meetingIds.push(meeting.id);
    }
    const FOLLOW = `mutation ($userId: UUID!) { follow(input: { userId: $userId }) { follow { id } } }`;
    for (const other of others) {
      await t.gql.data(FOLLOW, { userId: other.id }, owner.token);
      await t.gql.data(FOLLOW, { userId: owner.id }, other.token);
    }
    world = { meetingIds, userIds: people.map((person) => person.id) };
  });
  afterAll(() => t.close());

  it('counts at least as many records as the executed query produced, for generated nested queries', async () => {
    let largest = 0;
    let answered = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(queryOf(world), async (query) => {
        runs += 1;
        const counted = countDocumentNodes(t.instance.schema, parse(query));
        const answer = await t.gql.request(query, {}, owner.token);
        // Every generated query names what the owner may see; some are refused as too deep
        // (armor's depth limit) or too large, before anything runs.
        const unexpected = (answer.errors ?? []).filter(
          (error) =>
            error.extensions?.['code'] !== 'QUERY_TOO_LARGE' && !/depth/i.test(error.message),
        );
        expect(unexpected).toEqual([]);
        if (counted > MAX_NODES) {
          expect(answer.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_LARGE');
        }
        const records = produced(answer.data);
        answered += answer.errors ? 0 : 1;
        largest = Math.max(largest, records);
        expect(counted).toBeGreaterThanOrEqual(records);
      }),
      { seed: fuzzSeed(), numRuns: runsOf(150) },
    );
    // The property is not vacuous: most queries ran, and some answered many records.
    expect(answered).toBeGreaterThan(runs / 2);
    expect(largest).toBeGreaterThan(CAP * 2);
  });
});
