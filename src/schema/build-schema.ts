import { GraphQLSchema, isInterfaceType } from 'graphql';
import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from '../config';
import { buildSchema, type BuildSchemaOptions, type PubSub } from 'type-graphql';
import { callFieldResolversDirectly } from '../graphql/direct-field-resolvers';
import { AuthResolver } from '../modules/auth/auth.resolver';
import { FollowResolver } from '../modules/follow/follow.resolver';
import { MeetingResolver } from '../modules/meeting/meeting.resolver';
import { MeetingLifecycleResolver } from '../modules/meeting/meeting-lifecycle.resolver';
import { NodeResolver } from '../modules/node/node.resolver';
import { nodeTypeOf } from '../modules/node/node.type';
import { ParticipantResolver } from '../modules/participant/participant.resolver';
import { UserResolver } from '../modules/user/user.resolver';
import { SubscriptionResolver } from '../events/subscription.resolver';
import { FollowConnection } from '../modules/follow/follow.types';
import { MeetingConnection, ParticipantConnection } from '../modules/meeting/meeting.types';
import { UserConnection } from '../modules/user/user.types';
import { viewerAuthChecker } from '../shared/viewer.decorator';
import { validateArgs } from '../shared/validation';

/**
 * type-graphql asks for a PubSub once the schema has subscriptions, although each of ours brings
 * its own `subscribe` (src/events/subscription-streams.ts): nothing is ever published through this one.
 */
const NO_PUBSUB: PubSub = {
  publish: () => undefined,
  subscribe: () => {
    throw new Error('every subscription of this schema brings its own subscribe function');
  },
};

/** What the service bounds, which the schema carries for the node limit (src/graphql/node-limit.ts). */
export interface SchemaBounds {
  maxParticipantsPerMeeting: number;
}

/** The one schema both faces (GraphQL and REST) execute against. */
export async function createSchema(
  bounds: SchemaBounds = { maxParticipantsPerMeeting: DEFAULT_MAX_PARTICIPANTS_PER_MEETING },
): Promise<GraphQLSchema> {
  const options: BuildSchemaOptions = {
    resolvers: [
      AuthResolver,
      UserResolver,
      FollowResolver,
      MeetingResolver,
      MeetingLifecycleResolver,
      ParticipantResolver,
      SubscriptionResolver,
      NodeResolver,
      ...[MeetingConnection, ParticipantConnection, FollowConnection, UserConnection].map(
        (connection) => connection.resolver,
      ),
    ],
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
