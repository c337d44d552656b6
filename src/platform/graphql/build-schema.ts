import { GraphQLSchema, isInterfaceType } from 'graphql';
import { buildSchema, type BuildSchemaOptions, type PubSub } from 'type-graphql';
import { validateArgs } from '../shared/validation';
import { viewerAuthChecker } from '../auth/tokens';
import { callFieldResolversDirectly } from './execution';
import { nodeTypeOf } from './node-interface';

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

/** What the service bounds, which the schema carries for the node limit (node-limit.ts). */
export interface SchemaBounds {
  maxParticipantsPerMeeting: number;
}

/**
 * The executable schema of `resolvers` (type-graphql classes), with the checks every field shares:
 * the caller (`@Authorized`), argument validation, and `Node`'s type answered synchronously.
 */
export async function buildServiceSchema(
  resolvers: BuildSchemaOptions['resolvers'],
  bounds: SchemaBounds,
): Promise<GraphQLSchema> {
  const options: BuildSchemaOptions = {
    resolvers,
    validateFn: validateArgs,
    pubSub: NO_PUBSUB,
    authChecker: viewerAuthChecker,
  };
  const built = await buildSchema(options);
  const schema = new GraphQLSchema({ ...built.toConfig(), extensions: { ...bounds } });
  callFieldResolversDirectly(schema, options);
  // type-graphql wraps resolveType in an async function, which the compiled executor (graphql-jit)
  // does not await: Node answers its type synchronously.
  const node = schema.getType('Node');
  if (isInterfaceType(node)) {
    node.resolveType = nodeTypeOf;
  }
  return schema;
}
