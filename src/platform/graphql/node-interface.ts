import { Field, ID, InterfaceType } from 'type-graphql';

/** Where a record answered through `node` carries its GraphQL type (records are plain objects). */
const NODE_TYPE = Symbol('node type');

/** A record as `node` answers it: the same record, tagged with its type for `resolveType`. */
export function asNode<R extends object>(type: string, record: R): R {
  return { ...record, [NODE_TYPE]: type };
}

/** The GraphQL type of a record answered through `node` (see asNode). */
export const nodeTypeOf = (value: unknown): string | undefined =>
  (value as Record<symbol, string | undefined> | null)?.[NODE_TYPE];

@InterfaceType({
  description:
    'An object with an id unique across all types: the same UUID the REST face shows, which ' +
    'node(id) and nodes(ids) refetch.',
  resolveType: nodeTypeOf,
})
export abstract class Node {
  @Field(() => ID, { description: 'Unique identifier (lowercase UUID).' })
  id!: string;
}
