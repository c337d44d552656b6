import { Entity, Enum, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Node } from '../../../platform/graphql/node-interface';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { BaseEntity } from '../../../platform/shared/base.entity';
import { GraphQLUUID } from '../../../platform/shared/scalars';
import { Meeting } from '../meeting.entity';
import { User } from '../../user';

/** The longest reason an answer carries (an out-of-office period's title). */
export const ANSWER_REASON_MAX_LENGTH = 200;

export enum ParticipantStatus {
  NEW = 'new',
  ACCEPTED = 'accepted',
  DECLINED = 'declined',
}
registerEnumType(ParticipantStatus, {
  name: 'ParticipantStatus',
  description: 'A participant answer: new (not answered), accepted or declined.',
});

/** One user's place in one meeting. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A participant of a meeting, with the user record.',
})
@Entity({ tableName: 'participants' })
@Unique({ name: 'participants_meeting_user_unique', properties: ['meetingId', 'userId'] })
@Index({ name: 'participants_meeting_order_idx', properties: ['meetingId', 'createdAt', 'id'] })
@Index({ name: 'participants_user_status_idx', properties: ['userId', 'status', 'createdAt'] })
export class Participant extends BaseEntity<'status' | 'answerReason'> {
  @Field(() => ParticipantStatus, { description: 'The participant answer (default new).' })
  @Enum({
    items: () => ParticipantStatus,
    nativeEnumName: 'participant_status',
    default: ParticipantStatus.NEW,
  })
  status: ParticipantStatus = ParticipantStatus.NEW;

  @Field(() => GraphQLUUID, { description: 'Id of the meeting.' })
  @ManyToOne(() => Meeting, { mapToPk: true, fieldName: 'meeting_id', deleteRule: 'cascade' })
  meetingId!: string;

  @Field(() => GraphQLUUID, { description: 'Id of the participating user.' })
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Why the answer was given, when the service gave it for the participant (the title of ' +
      'their out-of-office period that declines invitations); null for their own answers.',
  })
  @Property({ type: 'string', length: ANSWER_REASON_MAX_LENGTH, nullable: true })
  answerReason: string | null = null;
}
