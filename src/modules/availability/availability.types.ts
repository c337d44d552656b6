import { Field, ObjectType } from 'type-graphql';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { MaxItems } from '../../platform/graphql/list-size';
import { AVAILABILITY_LIMITS } from './availability.inputs';
import { BusyKind } from './busy-time';
import { Resource, type ResourceRecord } from '../resource';

@ObjectType({ simpleResolvers: true, description: 'A span of time, [start, end).' })
export class TimeRange {
  @Field(() => GraphQLDateTime)
  start!: string;

  @Field(() => GraphQLDateTime)
  end!: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A span of time a user is busy, and of what kind.',
})
export class BusyRange extends TimeRange {
  @Field(() => BusyKind, {
    description: 'BUSY, TENTATIVE, OUT_OF_OFFICE or FOCUS (never a title).',
  })
  kind!: BusyKind;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'When one user is busy (never why) and works; or, with resourceId, when a room or other ' +
    'resource is booked and may be used.',
})
export class UserFreeBusy {
  @Field(() => GraphQLUUID, { nullable: true, description: 'The user (null: a resource).' })
  userId!: string | null;

  @Field(() => GraphQLUUID, {
    nullable: true,
    description: 'The resource (null: a user): its busy ranges are its bookings (BUSY).',
  })
  resourceId!: string | null;

  @Field(() => [BusyRange], {
    nullable: true,
    description:
      `Busy ranges, sorted, at most ${AVAILABILITY_LIMITS.rangesPerUser} (the earliest): ` +
      'ranges of a kind merged, and where kinds overlap the one that weighs most shown ' +
      '(OUT_OF_OFFICE, then BUSY, FOCUS, TENTATIVE); null when the user keeps their ' +
      'availability to themselves (shareAvailability false).',
  })
  @MaxItems(AVAILABILITY_LIMITS.rangesPerUser)
  busy!: BusyRange[] | null;

  @Field(() => [TimeRange], {
    nullable: true,
    description:
      "The user's working hours within the window as instants (their week in their time " +
      `zone), sorted, at most ${AVAILABILITY_LIMITS.rangesPerUser}; null when they keep ` +
      'their availability to themselves, and in conflicts.',
  })
  @MaxItems(AVAILABILITY_LIMITS.rangesPerUser)
  workingHours!: TimeRange[] | null;
}

@ObjectType({ simpleResolvers: true, description: 'How a suggested time suits one attendee.' })
export class AttendeeFit {
  @Field(() => GraphQLUUID)
  userId!: string;

  @Field({
    description:
      'Free then (or not sharing their time) and, unless the input gave working hours, ' +
      'within their own working hours.',
  })
  available!: boolean;

  @Field({
    description:
      'Whether the time lies within their own working hours, in their time zone (true for a ' +
      'user who does not share their availability).',
  })
  inWorkingHours!: boolean;
}

@ObjectType({ simpleResolvers: true, description: 'A time that suits enough of the attendees.' })
export class TimeSuggestion {
  @Field(() => GraphQLDateTime)
  startTime!: string;

  @Field(() => GraphQLDateTime)
  endTime!: string;

  @Field(() => [GraphQLUUID], {
    description: 'Attendees available then (see AttendeeFit.available).',
  })
  availableUserIds!: string[];

  @Field(() => [GraphQLUUID], { description: 'Attendees busy then, or outside their hours.' })
  unavailableUserIds!: string[];

  @Field(() => [AttendeeFit], {
    description: 'Each attendee (the caller first), and how the time suits them.',
  })
  @MaxItems(AVAILABILITY_LIMITS.users + 1)
  attendees!: AttendeeFit[];

  @Field(() => Resource, {
    nullable: true,
    description: 'A room free then that fits (when the input asked for one; else null).',
  })
  room!: ResourceRecord | null;
}
