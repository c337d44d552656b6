import { Entity, Enum, Index, ManyToOne, type Ref, Unique } from '@mikro-orm/core';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { BaseEntity } from '../../shared/base.entity';
import { deriveRelationIds } from '../../shared/relation-ids';
import { GraphQLUUID } from '../../shared/scalars';
import { Meeting } from '../meeting/meeting.entity';
import { User } from '../user/user.entity';

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
  description: 'A participant of a meeting, with the user record.',
})
@Entity({ tableName: 'participants' })
@Unique({ name: 'participants_meeting_user_unique', properties: ['meeting', 'user'] })
@Index({ name: 'participants_meeting_order_idx', properties: ['meeting', 'createdAt', 'id'] })
@Index({ name: 'participants_user_status_idx', properties: ['user', 'status', 'createdAt'] })
export class Participant extends BaseEntity<'status' | 'meetingId' | 'userId'> {
  @ManyToOne(() => Meeting, { ref: true, deleteRule: 'cascade' })
  meeting!: Ref<Meeting>;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  @Field(() => ParticipantStatus, { description: 'The participant answer (default new).' })
  @Enum({
    items: () => ParticipantStatus,
    nativeEnumName: 'participant_status',
    default: ParticipantStatus.NEW,
  })
  status: ParticipantStatus = ParticipantStatus.NEW;

  @Field(() => GraphQLUUID, { description: 'Id of the meeting.' })
  readonly meetingId!: string;

  @Field(() => GraphQLUUID, { description: 'Id of the participating user.' })
  readonly userId!: string;
}

deriveRelationIds(Participant, { meetingId: 'meeting', userId: 'user' });
