import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import type { Context } from '../context';
import { AuthResolver } from '../modules/auth/auth.resolver';
import { FollowResolver } from '../modules/follow/follow.resolver';
import { MeetingResolver } from '../modules/meeting/meeting.resolver';
import { MeetingLifecycleResolver } from '../modules/meeting/meeting-lifecycle.resolver';
import { ParticipantResolver } from '../modules/participant/participant.resolver';
import { UserResolver } from '../modules/user/user.resolver';
import { FollowConnection } from '../modules/follow/follow.types';
import { MeetingConnection, ParticipantConnection } from '../modules/meeting/meeting.types';
import { UserConnection } from '../modules/user/user.types';
import { requireViewer } from '../shared/viewer.decorator';
import { validateArgs } from '../shared/validation';

/** The one schema both faces (GraphQL and REST) execute against. */
export function createSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [
      AuthResolver,
      UserResolver,
      FollowResolver,
      MeetingResolver,
      MeetingLifecycleResolver,
      ParticipantResolver,
      ...[MeetingConnection, ParticipantConnection, FollowConnection, UserConnection].map(
        (connection) => connection.resolver,
      ),
    ],
    validateFn: validateArgs,
    // Runs before arguments are validated, so an anonymous caller learns nothing about inputs.
    authChecker: ({ context }: { context: Context }) => {
      requireViewer(context);
      return true;
    },
  });
}
