import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Meeting } from '../meeting/meeting.entity';
import { User } from '../user/user.entity';
import { Participant } from './participant.entity';
import type { ParticipantRecord } from './participant.store';
import type { MeetingRecord } from '../meeting/meeting.store';
import type { UserRecord } from '../user/user.store';

@Resolver(() => Participant)
export class ParticipantResolver {
  @FieldResolver(() => User, { description: 'The participating user.' })
  user(@Root() participant: ParticipantRecord, @Ctx() ctx: Context): Promise<UserRecord | null> {
    return ctx.loaders.users.load(participant.userId);
  }

  @FieldResolver(() => Meeting, { description: 'The meeting.' })
  meeting(
    @Root() participant: ParticipantRecord,
    @Ctx() ctx: Context,
  ): Promise<MeetingRecord | null> {
    return ctx.loaders.meetings.load(participant.meetingId);
  }
}
