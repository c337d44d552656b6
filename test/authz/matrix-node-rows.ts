import { allowed, type Capability, forMembers } from './matrix-capability';

/*
 * The authorization matrix's rows for refetching by id (node, nodes): GraphQL only. A hidden
 * object is null, as an unknown id is, never an error: the stranger asks too and gets null for the
 * scene's meeting, beside the user every member may see.
 */

const NODES = `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`;

export const nodeCapabilities: Capability[] = [
  {
    action: 'refetch a user by id',
    rest: [],
    graphql: { operation: 'query', field: 'node' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: `query ($id: ID!) { node(id: $id) { id ... on User { account } } }`,
      variables: { id: s.target.id },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene }) => {
        expect(root).toEqual({
          id: scene.target.id,
          account: scene.target.account,
        });
      }),
    ),
  },
  {
    action: 'refetch the meeting and its owner by id (null where hidden)',
    rest: [],
    graphql: { operation: 'query', field: 'nodes' },
    restCall: () => ({}),
    graphqlCall: (s) => ({
      query: NODES,
      variables: { ids: [s.meeting.id, s.world.users.owner.id] },
    }),
    outcomes: forMembers(
      allowed(200, ({ root, scene, caller }) => {
        const owner = { id: scene.world.users.owner.id };
        const meeting = { id: scene.meeting.id };
        expect(root).toEqual([caller === 'stranger' ? null : meeting, owner]);
      }),
    ),
  },
];
