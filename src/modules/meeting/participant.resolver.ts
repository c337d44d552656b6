import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Meeting } from './meeting.entity';
import { User } from '../user/user.entity';
import { Participant } from './participant.entity';
import type { ParticipantRecord } from './participant.store';
import type { MeetingRecord } from './meeting.store';
import type { UserRecord } from '../user/user.store';
import type { Known } from '../../platform/shared/known-loader';

@Resolver(() => Participant)
export class ParticipantResolver {
  @FieldResolver(() => User, { description: 'The participating user.' })
  user(@Root() participant: ParticipantRecord, @Ctx() ctx: Context): Known<UserRecord | null> {
    return ctx.loaders.users.get(participant.userId);
  }

  @FieldResolver(() => Meeting, { description: 'The meeting.' })
  meeting(
    @Root() participant: ParticipantRecord,
    @Ctx() ctx: Context,
  ): Known<MeetingRecord | null> {
    return ctx.loaders.meetings.get(participant.meetingId);
  }
}
