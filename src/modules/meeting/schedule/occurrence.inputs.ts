import { ArgsType, Field, InputType } from 'type-graphql';
import { GraphQLDateTime } from '../../../platform/shared/scalars';
import { IsFuture, IsInstant } from '../../../platform/shared/validation';
import { InputArgs, MeetingRef } from '../meeting.inputs';

@ArgsType()
export class OccurrencesArgs {
  @Field(() => GraphQLDateTime, { description: 'Occurrences that end after this time.' })
  @IsInstant()
  from!: Date;

  @Field(() => GraphQLDateTime, {
    description: 'Occurrences that start before this time; at most 366 days after from.',
  })
  @IsInstant()
  to!: Date;
}

@InputType({ description: 'One occurrence of a series to cancel.' })
export class CancelOccurrenceInput extends MeetingRef {
  @Field(() => GraphQLDateTime, {
    description: 'The occurrence, by the start its rule gives it (originalStartTime).',
  })
  @IsInstant()
  originalStartTime!: Date;
}

@InputType({ description: 'One occurrence of a series to move.' })
export class MoveOccurrenceInput extends CancelOccurrenceInput {
  @Field(() => GraphQLDateTime, { description: 'Its new start, in the future.' })
  @IsFuture()
  startTime!: Date;
}

@ArgsType()
export class CancelOccurrenceArgs extends InputArgs(CancelOccurrenceInput) {}

@ArgsType()
export class MoveOccurrenceArgs extends InputArgs(MoveOccurrenceInput) {}
