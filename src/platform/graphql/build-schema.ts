import { type GraphQLArgument, GraphQLSchema, isInterfaceType, isObjectType } from 'graphql';
import {
  buildSchema,
  type BuildSchemaOptions,
  getMetadataStorage,
  type PubSub,
} from 'type-graphql';
import { validateArgs } from '../shared/validation';
import { viewerAuthChecker } from '../auth/tokens';
import { callFieldResolversDirectly } from './execution';
import { nodeTypeOf } from './node-interface';
import type { ListBound } from './list-size';
import { annotateCosts, COST_DIRECTIVES } from './cost-directives';

/**
 * type-graphql asks for a PubSub once the schema has subscriptions, although each of ours brings
 * its own `subscribe`: nothing is ever published through this one.
 */
const NO_PUBSUB: PubSub = {
  publish: () => undefined,
  subscribe: () => {
    throw new Error('every subscription of this schema brings its own subscribe function');
  },
};

/**
 * Orders the resolvers' root fields and field resolvers as `resolvers` lists their classes.
 * type-graphql keeps them in the order their classes were defined, which is whichever file
 * happened to load first; listed, the schema (and its printed SDL) depends on the list alone.
 */
function orderAsListed(resolvers: readonly unknown[]): void {
  const rank = new Map(resolvers.map((resolver, index) => [resolver, index]));
  const byRank = (a: { target: unknown }, b: { target: unknown }) =>
    (rank.get(a.target) ?? resolvers.length) - (rank.get(b.target) ?? resolvers.length);
  const storage = getMetadataStorage();
  storage.queries.sort(byRank);
  storage.mutations.sort(byRank);
  storage.subscriptions.sort(byRank);
  storage.fieldResolvers.sort(byRank);
}

/**
 * Puts every field's arguments in alphabetical order. type-graphql lists them as their decorators
 * ran, which a CI run on Node 24 once saw differ from one test thread to another (a field's
 * `answers` before its slice arguments, and after): ordered by name, the schema and its printed
 * SDL never depend on it. Arguments are passed by name, so no client sees a difference.
 */
function orderArguments(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        (field.args as GraphQLArgument[]).sort((a, b) => (a.name < b.name ? -1 : 1));
      }
    }
  }
}

/**
 * The executable schema of `resolvers` (type-graphql classes), with the checks every field shares:
 * the caller (`@Authorized`), argument validation, and `Node`'s type answered synchronously.
 */
export async function buildServiceSchema(
  resolvers: readonly (abstract new (...args: never[]) => unknown)[],
  listBounds: readonly ListBound[],
): Promise<GraphQLSchema> {
  const [first, ...rest] = resolvers;
  if (!first) {
    throw new Error('a schema needs at least one resolver');
  }
  orderAsListed(resolvers);
  const options: BuildSchemaOptions = {
    resolvers: [first, ...rest],
    validateFn: validateArgs,
    pubSub: NO_PUBSUB,
    authChecker: viewerAuthChecker,
  };
  const config = (await buildSchema(options)).toConfig();
  // Its types in an order of their own (type-graphql lists them as their classes were defined,
  // whichever file loaded first), so that the schema and its printed SDL are always the same.
  const types = [...config.types].sort((a, b) => (a.name < b.name ? -1 : 1));
  const schema = new GraphQLSchema({
    ...config,
    types,
    directives: [...config.directives, ...COST_DIRECTIVES],
    extensions: { listBounds },
  });
  orderArguments(schema);
  annotateCosts(schema);
  callFieldResolversDirectly(schema, options);
  // type-graphql wraps resolveType in an async function, which the compiled executor (graphql-jit)
  // does not await: Node answers its type synchronously.
  const node = schema.getType('Node');
  if (isInterfaceType(node)) {
    node.resolveType = nodeTypeOf;
  }
  return schema;
}
