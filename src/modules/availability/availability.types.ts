import { Field, ObjectType } from 'type-graphql';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { MaxItems } from '../../platform/graphql/node-limit';
import { AVAILABILITY_LIMITS } from './availability.inputs';

@ObjectType({ simpleResolvers: true, description: 'A span of time, [start, end).' })
export class TimeRange {
  @Field(() => GraphQLDateTime)
  start!: string;

  @Field(() => GraphQLDateTime)
  end!: string;
}

@ObjectType({ simpleResolvers: true, description: 'When one user is busy (never why).' })
export class UserFreeBusy {
  @Field(() => GraphQLUUID)
  userId!: string;

  @Field(() => [TimeRange], {
    nullable: true,
    description:
      `Busy ranges, merged and sorted, at most ${AVAILABILITY_LIMITS.rangesPerUser} (the ` +
      'earliest); null when the user keeps their availability to themselves ' +
      '(shareAvailability false).',
  })
  @MaxItems(AVAILABILITY_LIMITS.rangesPerUser)
  busy!: TimeRange[] | null;
}

@ObjectType({ simpleResolvers: true, description: 'A time that suits enough of the attendees.' })
export class TimeSuggestion {
  @Field(() => GraphQLDateTime)
  startTime!: string;

  @Field(() => GraphQLDateTime)
  endTime!: string;

  @Field(() => [GraphQLUUID], { description: 'Attendees free then (or not sharing their time).' })
  availableUserIds!: string[];

  @Field(() => [GraphQLUUID], { description: 'Attendees busy then.' })
  unavailableUserIds!: string[];
}
