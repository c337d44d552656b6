import { Field, ObjectType } from 'type-graphql';
import { GraphQLDateTime } from '../../../platform/shared/scalars';
import { MeetingPayload } from '../meeting.types';

/** One occurrence of a meeting, as GraphQL shows it. */
@ObjectType({ simpleResolvers: true, description: 'One occurrence of a meeting or series.' })
export class MeetingOccurrence {
  @Field(() => GraphQLDateTime, {
    description: 'When this occurrence starts (moved: its new start).',
  })
  startTime!: string;

  @Field(() => GraphQLDateTime, { description: 'When it ends: its start plus the duration.' })
  endTime!: string;

  @Field(() => GraphQLDateTime, {
    description: 'Where the rule puts it: the name of the occurrence, whether moved or not.',
  })
  originalStartTime!: string;

  @Field({ description: 'Whether this occurrence alone was cancelled.' })
  cancelled!: boolean;
}

/** What a change of one occurrence answers. */
@ObjectType({ simpleResolvers: true })
export abstract class OccurrencePayload extends MeetingPayload {
  @Field(() => MeetingOccurrence, { description: 'The occurrence as the change left it.' })
  occurrence!: MeetingOccurrence;
}

@ObjectType({ simpleResolvers: true, description: 'The result of cancelOccurrence.' })
export class CancelOccurrencePayload extends OccurrencePayload {}

@ObjectType({ simpleResolvers: true, description: 'The result of moveOccurrence.' })
export class MoveOccurrencePayload extends OccurrencePayload {}
