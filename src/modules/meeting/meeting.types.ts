import { Field, ObjectType } from 'type-graphql';
import { Connection } from '../../platform/graphql/connection';
import { Participant } from './participants/participant.entity';
import type { ParticipantRecord } from './participants/participant.store';
import { Meeting } from './meeting.entity';
import type { MeetingRecord } from './meeting.store';

/** Slices of meeting lists and of participant lists (a meeting's, the caller's invitations). */
export const MeetingConnection = Connection(Meeting, 'Meeting');
export const ParticipantConnection = Connection(Participant, 'Participant');

/** What a mutation of a meeting answers: the meeting as the change left it. */
@ObjectType({ simpleResolvers: true })
export abstract class MeetingPayload {
  @Field(() => Meeting, { description: 'The meeting as the change left it.' })
  meeting!: MeetingRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The result of createMeeting.' })
export class CreateMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of approveMeeting.' })
export class ApproveMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of declineMeeting.' })
export class DeclineMeetingPayload extends MeetingPayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of addParticipant.' })
export class AddParticipantPayload {
  @Field(() => Participant, { description: 'The participant as added.' })
  participant!: ParticipantRecord;
}
