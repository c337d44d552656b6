import { Field, ObjectType } from 'type-graphql';
import {
  Meeting,
  MeetingEventKind,
  type MeetingRecord,
  Participant,
  type ParticipantRecord,
} from '../meeting';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';

/** A change to a meeting, as one subscriber receives it. */
@ObjectType({
  simpleResolvers: true,
  description: 'A change to a meeting, delivered to its owner, participants and admins.',
})
export class MeetingEvent {
  @Field({
    description:
      'Where the event stands in the change log: pass it as `after` to resume from here ' +
      '(opaque; kept CHANGE_LOG_RETENTION_HOURS, 7 days by default).',
  })
  cursor!: string;

  @Field(() => MeetingEventKind, { description: 'What happened.' })
  kind!: MeetingEventKind;

  @Field(() => Meeting, { description: 'The meeting as it is when the event is delivered.' })
  meeting!: MeetingRecord;

  @Field(() => Participant, {
    nullable: true,
    description:
      'The participant added or answering, as they are now; null for a participant removed and ' +
      'for changes to the meeting itself.',
  })
  participant!: ParticipantRecord | null;

  @Field(() => GraphQLUUID, {
    nullable: true,
    description: 'Id of the user the event is about: the participant added, answering or removed.',
  })
  userId!: string | null;

  @Field(() => GraphQLDateTime, { description: 'When the change was committed (UTC).' })
  occurredAt!: string;
}
