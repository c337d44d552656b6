import {
  ArrayMaxSize,
  ArrayMinSize,
  IsEnum,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { DEFAULT_TIME_ZONE } from '../../platform/shared/time-zone';
import { IsInstant, IsTimeZone } from '../../platform/shared/validation';
import { InputArgs, MEETING_LIMITS } from '../meeting';
import { TIME_OF_DAY, Weekday, WORKING_HOURS_LIMITS } from '../user';
import { RESOURCE_LIMITS, ResourceFilterInput } from '../resource';

/** The bounds of availability questions. */
export const AVAILABILITY_LIMITS = {
  users: 50,
  /** Busy ranges shown per user, the earliest (a narrower window shows the rest). */
  rangesPerUser: 500,
  /** Participants a meeting's conflicts show, in the order they were added. */
  conflictsShown: 50,
  windowDays: 62,
  step: { min: 5, max: 240, default: 15 },
  first: { max: 50, default: 5 },
  workingHours: WORKING_HOURS_LIMITS.defaultDay,
  weekdays: WORKING_HOURS_LIMITS.defaultWeekdays,
} as const;

const DURATION = MEETING_LIMITS.durationMinutes;

@ArgsType()
export class FreeBusyArgs {
  @Field(() => [GraphQLUUID], {
    description: 'The users, at most 50 (none: the resources only, then at least one of them).',
  })
  @ArrayMaxSize(AVAILABILITY_LIMITS.users)
  userIds!: string[];

  @Field(() => [GraphQLUUID], {
    nullable: true,
    description:
      `Rooms and other resources, at most ${RESOURCE_LIMITS.freeBusy}: each answers an entry ` +
      'after the users’, with resourceId and its booked time (else RESOURCE_NOT_FOUND).',
  })
  @IsOptional()
  @ArrayMaxSize(RESOURCE_LIMITS.freeBusy)
  resourceIds?: string[] | null;

  @Field(() => GraphQLDateTime, { description: 'From this time.' })
  @IsInstant()
  from!: Date;

  @Field(() => GraphQLDateTime, { description: 'Until this time, at most 62 days after from.' })
  @IsInstant()
  to!: Date;
}

@InputType({ description: 'Working hours, wall-clock HH:MM in the time zone asked about.' })
export class WorkingHoursInput {
  @Field({ description: 'When the working day starts, e.g. 09:00.' })
  @Matches(TIME_OF_DAY)
  start!: string;

  @Field({ description: 'When it ends, e.g. 17:00: a slot may end then, not later.' })
  @Matches(TIME_OF_DAY)
  end!: string;
}

// Optional fields are nullable with defaults: the compiled executor does not fill in an input
// field's default when its variable is not given (the service applies them).
@InputType({ description: 'What to suggest meeting times for.' })
export class SuggestMeetingTimesInput {
  @Field(() => [GraphQLUUID], {
    description: 'The attendees besides the caller (who counts as one), at most 50.',
  })
  @ArrayMaxSize(AVAILABILITY_LIMITS.users)
  userIds!: string[];

  @Field(() => Int, {
    description: `The meeting's length, ${DURATION.min} to ${DURATION.max} minutes.`,
  })
  @IsInt()
  @Min(DURATION.min)
  @Max(DURATION.max)
  durationMinutes!: number;

  @Field(() => GraphQLDateTime, {
    description: 'No slot starts before this time (nor before now).',
  })
  @IsInstant()
  from!: Date;

  @Field(() => GraphQLDateTime, {
    description: 'No slot ends after this time; at most 62 days after from.',
  })
  @IsInstant()
  to!: Date;

  @Field(() => String, {
    nullable: true,
    defaultValue: DEFAULT_TIME_ZONE,
    description: 'With workingHours: the IANA zone of those hours and weekdays (default UTC).',
  })
  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  @Field(() => WorkingHoursInput, {
    nullable: true,
    description:
      "One window for everybody, overriding each attendee's own working hours: these hours " +
      'on the weekdays given, in timeZone. Left out: each attendee’s own hours count.',
  })
  @IsOptional()
  @ValidateNested()
  workingHours?: WorkingHoursInput | null;

  @Field(() => [Weekday], {
    nullable: true,
    description: 'With workingHours: the days to look at (default MO–FR).',
  })
  @IsOptional()
  @ArrayMinSize(1)
  @IsEnum(Weekday, { each: true })
  weekdays?: Weekday[] | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: 100,
    description: 'The share of attendees a slot needs free, 1 to 100 percent (default 100).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  minimumAttendeePercentage?: number | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: AVAILABILITY_LIMITS.step.default,
    description: 'Minutes between candidate starts, 5 to 240 (default 15).',
  })
  @IsOptional()
  @IsInt()
  @Min(AVAILABILITY_LIMITS.step.min)
  @Max(AVAILABILITY_LIMITS.step.max)
  stepMinutes?: number | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: AVAILABILITY_LIMITS.first.default,
    description: 'How many suggestions, 1 to 50 (default 5).',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(AVAILABILITY_LIMITS.first.max)
  first?: number | null;

  @Field(() => ResourceFilterInput, {
    nullable: true,
    description:
      'Asks for a room with each suggestion: one the filter takes that holds every attendee ' +
      '(and minCapacity), free for the whole slot and within its working hours; the smallest ' +
      'that fits. A slot without such a room is not suggested.',
  })
  @IsOptional()
  @ValidateNested()
  room?: ResourceFilterInput | null;
}

@ArgsType()
export class SuggestMeetingTimesArgs extends InputArgs(SuggestMeetingTimesInput) {}
