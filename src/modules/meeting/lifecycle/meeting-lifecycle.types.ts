import { Field, ObjectType } from 'type-graphql';
import { GraphQLUUID } from '../../../platform/shared/scalars';
import { Meeting } from '../meeting.entity';
import type { Departure } from './meeting-lifecycle.service';
import type { MeetingRecord } from '../meeting.store';
import { MeetingPayload } from '../meeting.types';

@ObjectType({ simpleResolvers: true, description: 'The result of updateMeeting.' })
export class UpdateMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of rescheduleMeeting.' })
export class RescheduleMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of cancelMeeting.' })
export class CancelMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of completeMeeting.' })
export class CompleteMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of removeParticipant.' })
export class RemoveParticipantPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of leaveMeeting.' })
export class LeaveMeetingPayload implements Departure {
  @Field(() => GraphQLUUID, { description: 'Id of the meeting the caller left.' })
  meetingId!: string;

  @Field(() => Meeting, {
    nullable: true,
    description:
      'The meeting as the caller left it, only while they may still see it (an admin); ' +
      'otherwise null, as a meeting one is not part of is not shown.',
  })
  meeting!: MeetingRecord | null;
}
