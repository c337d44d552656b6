import type { SeededUser } from '../helpers/seed';
import type { World } from './authz-fixtures';
import {
  allowed,
  type Capability,
  forMembers,
  NOT_AUTHENTICATED,
  refused,
  type Scene,
} from './matrix-capability';

/*
 * The authorization matrix's rows for time away (issue 41), GraphQL only. Away periods are their
 * owner's alone: every member makes and lists their own; a period of the scene's owner is the
 * owner's to change or delete, and to anyone else (an admin too) it does not exist.
 */

const PERIOD_HIDDEN = refused(404, 'AWAY_PERIOD_NOT_FOUND', 'NOT_FOUND');
const FIELDS = 'id start end kind title declineInvitations';
const CREATE = `mutation ($input: CreateAwayPeriodInput!) {
  createAwayPeriod(input: $input) { awayPeriod { ${FIELDS} } }
}`;
const PERIOD = {
  start: '2031-01-06T00:00:00.000Z',
  end: '2031-01-10T00:00:00.000Z',
  kind: 'OUT_OF_OFFICE',
  title: 'Matrix holiday',
  declineInvitations: false,
};

async function newPeriod(world: World, user: SeededUser): Promise<string> {
  const data = await world.t.gql.data<{ createAwayPeriod: { awayPeriod: { id: string } } }>(
    CREATE,
    { input: PERIOD },
    user.token,
  );
  return data.createAwayPeriod.awayPeriod.id;
}

/** A period of the scene's owner for each case, made before the case's state is taken. */
const perCase = new Map<number, Promise<string>>();
const ownersPeriod = (scene: Scene): Promise<string> => {
  let period = perCase.get(scene.n);
  if (!period) {
    period = newPeriod(scene.world, scene.world.users.owner);
    perCase.set(scene.n, period);
  }
  return period;
};

/** Only the owner of the scene's meeting (who owns the period), however privileged the rest. */
const ownerOnly = (outcome: ReturnType<typeof allowed>): Capability['outcomes'] =>
  forMembers(PERIOD_HIDDEN, { owner: outcome, anonymous: NOT_AUTHENTICATED });

export const awayCapabilities: Capability[] = [
  {
    action: 'record time away of their own',
    rest: [],
    graphql: { operation: 'mutation', field: 'createAwayPeriod' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: CREATE, variables: { input: PERIOD } }),
    outcomes: forMembers(
      allowed(200, ({ root }) =>
        expect(root).toEqual({ awayPeriod: { id: expect.any(String), ...PERIOD } }),
      ),
    ),
  },
  {
    action: 'list their own time away',
    rest: [],
    graphql: { operation: 'query', field: 'myAwayPeriods' },
    restCall: () => ({}),
    prepare: async (s) => {
      await ownersPeriod(s);
    },
    graphqlCall: () => ({
      query: `query ($from: DateTime!, $to: DateTime!) { myAwayPeriods(from: $from, to: $to) { id } }`,
      variables: { from: '2031-01-01T00:00:00Z', to: '2031-02-01T00:00:00Z' },
    }),
    outcomes: forMembers(
      allowed(200, async ({ root, scene, caller }) => {
        const ids = (root as unknown as Array<{ id: string }>).map((period) => period.id);
        expect(ids.includes(await ownersPeriod(scene))).toBe(caller === 'owner');
      }),
    ),
  },
  {
    action: 'change time away of the owner’s',
    rest: [],
    graphql: { operation: 'mutation', field: 'updateAwayPeriod' },
    restCall: () => ({}),
    prepare: async (s) => {
      await ownersPeriod(s);
    },
    graphqlCall: async (s) => ({
      query: `mutation ($input: UpdateAwayPeriodInput!) {
        updateAwayPeriod(input: $input) { awayPeriod { id title } }
      }`,
      variables: { input: { awayPeriodId: await ownersPeriod(s), title: 'Changed' } },
    }),
    outcomes: ownerOnly(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({ awayPeriod: { id: await ownersPeriod(scene), title: 'Changed' } }),
      ),
    ),
  },
  {
    action: 'delete time away of the owner’s',
    rest: [],
    graphql: { operation: 'mutation', field: 'deleteAwayPeriod' },
    restCall: () => ({}),
    prepare: async (s) => {
      await ownersPeriod(s);
    },
    graphqlCall: async (s) => ({
      query: `mutation ($input: DeleteAwayPeriodInput!) {
        deleteAwayPeriod(input: $input) { awayPeriod { id } }
      }`,
      variables: { input: { awayPeriodId: await ownersPeriod(s) } },
    }),
    outcomes: ownerOnly(
      allowed(200, async ({ root, scene }) =>
        expect(root).toEqual({ awayPeriod: { id: await ownersPeriod(scene) } }),
      ),
    ),
  },
];
