import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Meeting } from '../meeting/meeting.entity';
import { User } from '../user/user.entity';
import { Participant } from './participant.entity';

@Resolver(() => Participant)
export class ParticipantResolver {
  @FieldResolver(() => User, { description: 'The participating user.' })
  user(@Root() participant: Participant, @Ctx() ctx: Context): Promise<User | null> {
    return ctx.loaders.users.load(participant.userId);
  }

  @FieldResolver(() => Meeting, { description: 'The meeting.' })
  meeting(@Root() participant: Participant, @Ctx() ctx: Context): Promise<Meeting | null> {
    return ctx.loaders.meetings.load(participant.meetingId);
  }
}
