import {
  ArrayMaxSize,
  ArrayUnique,
  IsEnum,
  ArrayMinSize,
  IsInt,
  IsOptional,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { SortDirection } from '../../platform/graphql/connection';
import { type InputClass, PickInput } from '../../platform/shared/derived-inputs';
import { PageArgs } from '../../platform/shared/pagination';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import {
  IsFuture,
  IsInstant,
  IsTimeZone,
  NotBlank,
  TrimmedMaxLength,
  TrimmedMinLength,
} from '../../platform/shared/validation';
import { DEFAULT_TIME_ZONE, storedTimeZone } from '../../platform/shared/time-zone';
import { IsRecurrence, normalRecurrence } from './schedule/recurrence.rules';
import { ParticipantStatus } from './participants/participant.entity';
import { RESOURCE_LIMITS } from '../resource';
import {
  MEETING_LIMITS,
  type Meeting,
  MeetingRole,
  MeetingStatus,
  MeetingType,
} from './meeting.entity';
import type { MeetingFilter } from './meeting.filter';
import type { InvitationFilter } from './participants/participant.store';

export const MAX_PARTICIPANTS_PER_CREATE = 500;

const REMINDERS = MEETING_LIMITS.reminderMinutes;

@InputType({ description: 'The meeting to create.' })
export class MeetingInput {
  @Field({ description: 'Title, 6 to 40 characters.' })
  @NotBlank()
  @TrimmedMinLength(MEETING_LIMITS.title.min)
  @TrimmedMaxLength(MEETING_LIMITS.title.max)
  title!: string;

  @Field(() => MeetingType, { nullable: true, description: 'Kind of meeting (default all-hands).' })
  type?: MeetingType | null;

  @Field(() => GraphQLDateTime, { description: 'Start, an ISO 8601 date-time in the future.' })
  @IsFuture()
  startTime!: Date;

  @Field({ description: 'Place, 6 to 40 characters.' })
  @NotBlank()
  @TrimmedMinLength(MEETING_LIMITS.location.min)
  @TrimmedMaxLength(MEETING_LIMITS.location.max)
  location!: string;

  @Field(() => String, { nullable: true, description: 'Link to join, at most 100 characters.' })
  @IsOptional()
  @MaxLength(MEETING_LIMITS.locationUrl.max)
  locationUrl?: string | null;

  @Field(() => GraphQLUUID, {
    nullable: true,
    description: 'Id of the user who appointed the meeting.',
  })
  appointedBy?: string | null;

  @Field(() => GraphQLUUID, {
    nullable: true,
    description: 'Id of the user the meeting is assigned to.',
  })
  assignedTo?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Minutes each occurrence lasts, ${MEETING_LIMITS.durationMinutes.min} to ${MEETING_LIMITS.durationMinutes.max} (default ${MEETING_LIMITS.durationMinutes.default}).`,
  })
  @IsOptional()
  @IsInt()
  @Min(MEETING_LIMITS.durationMinutes.min)
  @Max(MEETING_LIMITS.durationMinutes.max)
  durationMinutes?: number | null;

  @Field(() => String, {
    nullable: true,
    description: `An IANA time zone such as Europe/Berlin (default ${DEFAULT_TIME_ZONE}; unknown: INVALID_TIME_ZONE).`,
  })
  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `What the meeting is about, at most ${MEETING_LIMITS.description.max} characters.`,
  })
  @IsOptional()
  @TrimmedMaxLength(MEETING_LIMITS.description.max)
  description?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'How it repeats: an RFC 5545 RRULE with FREQ DAILY, WEEKLY or MONTHLY, and INTERVAL, ' +
      'BYDAY, BYMONTHDAY, COUNT or UNTIL, WKST; read in wall-clock time of timeZone. The start ' +
      'must be its first occurrence (else INVALID_RECURRENCE, as for a rule outside the subset).',
  })
  @IsOptional()
  @IsRecurrence()
  recurrence?: string | null;

  @Field(() => [Int], {
    nullable: true,
    description:
      `Minutes before each occurrence to remind its accepted participants and its owner: at most ${REMINDERS.count} ` +
      `distinct values, ${REMINDERS.min} to ${REMINDERS.max} each; [] for none (default and null: [${REMINDERS.default.join(', ')}]).`,
  })
  @IsOptional()
  @ArrayMaxSize(REMINDERS.count)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(REMINDERS.min, { each: true })
  @Max(REMINDERS.max, { each: true })
  reminderMinutes?: number[] | null;

  @Field(() => [GraphQLUUID], {
    nullable: true,
    description:
      `Rooms and other resources to book for it (each occurrence of a series, ` +
      `${RESOURCE_LIMITS.bookingHorizonDays.default} days ahead by default), at most ` +
      `${RESOURCE_LIMITS.perMeeting}: one booked then is CONFLICT, RESOURCE_BUSY; an unknown ` +
      'one NOT_FOUND, RESOURCE_NOT_FOUND.',
  })
  @IsOptional()
  @ArrayMaxSize(RESOURCE_LIMITS.perMeeting)
  @ArrayUnique()
  resourceIds?: string[] | null;
}

/**
 * How each field a caller sets is stored: the one list of a meeting's settable fields. The edit
 * input (UpdateMeetingInput), the writes of create and update, and the store's types derive
 * from it; a new settable field is a column on Meeting, a field on MeetingInput and a line here.
 */
/** How each field a caller sets is stored: one function a field, from its input to its column. */
type StoredAs = {
  // Its resources are bookings beside the meeting, not a column of it.
  [K in Exclude<keyof MeetingInput, 'resourceIds'>]: (value: MeetingInput[K]) => Meeting[K];
};

export const STORED_AS: StoredAs = {
  title: (title: string) => title.trim(),
  type: (type: MeetingType | null | undefined) => type ?? MeetingType.ALL_HANDS,
  startTime: (start: Date) => start,
  location: (location: string) => location.trim(),
  locationUrl: (url: string | null | undefined) => url ?? null,
  appointedBy: (userId: string | null | undefined) => userId ?? null,
  assignedTo: (userId: string | null | undefined) => userId ?? null,
  durationMinutes: (minutes: number | null | undefined) =>
    minutes ?? MEETING_LIMITS.durationMinutes.default,
  timeZone: storedTimeZone,
  // Validation let only known rules through.
  description: (text: string | null | undefined) => text?.trim() || null,
  recurrence: (rule: string | null | undefined) => (rule && normalRecurrence(rule)) || null,
  reminderMinutes: (minutes: number[] | null | undefined) =>
    minutes ? [...minutes].sort((a, b) => a - b) : [...REMINDERS.default],
};

/** The fields a caller sets on a meeting. */
export type SettableField = keyof StoredAs;

const SETTABLE_FIELDS = Object.keys(STORED_AS) as SettableField[];

/**
 * The fields that say when a meeting happens: rescheduleMeeting changes them (and asks every guest
 * again), an edit does not.
 */
export const TIMING_FIELDS = ['startTime', 'durationMinutes', 'timeZone', 'recurrence'] as const;

export type TimingField = (typeof TIMING_FIELDS)[number];

const isTiming = (field: SettableField): field is TimingField =>
  (TIMING_FIELDS as readonly string[]).includes(field);

/** The fields an edit may change: all but the timing. */
export const EDITABLE_FIELDS = SETTABLE_FIELDS.filter(
  (field): field is Exclude<SettableField, TimingField> => !isTiming(field),
);

export type EditableField = (typeof EDITABLE_FIELDS)[number];

/** One field's value as it is stored. */
function stored<K extends SettableField>(field: K, value: MeetingInput[K]): Meeting[K] {
  // A mapped type indexed by its own key type: TypeScript reads the field's function from it.
  const store: (given: MeetingInput[K]) => Meeting[K] = STORED_AS[field];
  return store(value);
}

/** A new meeting's fields as they are stored (those the input leaves out at their defaults). */
export function storedFields(input: MeetingInput): Pick<Meeting, SettableField> {
  const fields: Partial<Pick<Meeting, SettableField>> = {};
  for (const field of SETTABLE_FIELDS) {
    Object.assign(fields, { [field]: stored(field, input[field]) });
  }
  return fields as Pick<Meeting, SettableField>;
}

/** What an edit writes: the fields of `fields` it gives (not undefined), as they are stored. */
export function storedEdits<K extends SettableField>(
  input: Partial<Pick<MeetingInput, K>>,
  fields: readonly K[],
): Partial<Pick<Meeting, K>> {
  const edits: Partial<Pick<Meeting, K>> = {};
  for (const field of fields) {
    const value = input[field];
    if (value !== undefined) {
      Object.assign(edits, { [field]: stored(field, value) });
    }
  }
  return edits;
}

@InputType({ description: 'A user to invite, with an optional initial answer.' })
export class ParticipantInput {
  @Field(() => GraphQLUUID, { description: 'Id of the user to invite.' })
  userId!: string;

  @Field(() => ParticipantStatus, { nullable: true, description: 'Initial answer (default new).' })
  status?: ParticipantStatus | null;
}

@InputType({ description: 'A meeting to create, with the users to invite.' })
export class CreateMeetingInput {
  @Field(() => MeetingInput)
  @ValidateNested()
  meeting!: MeetingInput;

  @Field(() => [ParticipantInput], { description: 'The users to invite (at least one).' })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PARTICIPANTS_PER_CREATE)
  @ValidateNested({ each: true })
  participants!: ParticipantInput[];
}

@ArgsType()
export class MeetingIdArgs {
  @Field(() => GraphQLUUID, { description: 'Id of the meeting (UUID).' })
  meetingId!: string;
}

/** Names the meeting a mutation acts on (the rules of the meetingId argument). */
export const MeetingRef = PickInput(MeetingIdArgs, ['meetingId']);

@InputType({ description: 'A user to add to a meeting.' })
export class AddParticipantInput extends MeetingRef {
  @Field(() => GraphQLUUID, { description: 'Id of the user to add (UUID).' })
  userId!: string;

  // Nullable with a default: the compiled executor does not fill in an input field's default
  // when its variable is not given (the service reads a missing answer as new).
  @Field(() => ParticipantStatus, {
    nullable: true,
    defaultValue: ParticipantStatus.NEW,
    description: 'Initial answer (default new).',
  })
  status?: ParticipantStatus | null = ParticipantStatus.NEW;
}

@InputType({ description: 'The meeting whose invitation the caller accepts.' })
export class ApproveMeetingInput extends MeetingRef {}

@InputType({ description: 'The meeting whose invitation the caller declines.' })
export class DeclineMeetingInput extends MeetingRef {}

@ArgsType()
export class MeetingListArgs extends PageArgs(100) {}

@InputType({
  description: "Which of the caller's meetings to list; every condition given must hold.",
})
export class MeetingFilterInput implements MeetingFilter {
  @Field(() => [MeetingRole], {
    nullable: true,
    description: 'Only meetings where the caller is one of these (default: any).',
  })
  @IsOptional()
  @IsEnum(MeetingRole, { each: true })
  callerRoles?: MeetingRole[] | null;

  @Field(() => [MeetingStatus], {
    nullable: true,
    description: 'Only meetings in one of these states (default: all).',
  })
  @IsOptional()
  @IsEnum(MeetingStatus, { each: true })
  states?: MeetingStatus[] | null;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: 'Only meetings starting at or after this time (e.g. now, for upcoming ones).',
  })
  @IsOptional()
  @IsInstant()
  startsAfter?: Date | null;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: 'Only meetings starting before this time (e.g. now, for past ones).',
  })
  @IsOptional()
  @IsInstant()
  startsBefore?: Date | null;

  // Nullable with a default: the compiled executor does not fill in a non-null field's default.
  @Field(() => SortDirection, {
    nullable: true,
    defaultValue: SortDirection.ASC,
    description: 'By start time, earliest first (ASC, the default) or latest first.',
  })
  @IsOptional()
  order?: SortDirection | null = SortDirection.ASC;
}

@InputType({ description: "Which of the caller's invitations to list." })
export class InvitationFilterInput implements InvitationFilter {
  @Field(() => [ParticipantStatus], {
    nullable: true,
    description: 'Only invitations with one of these answers (default: [NEW], the unanswered).',
  })
  @IsOptional()
  @IsEnum(ParticipantStatus, { each: true })
  answers?: ParticipantStatus[] | null;

  @Field(() => [MeetingStatus], {
    nullable: true,
    description: 'Only to meetings in one of these statuses (default: [PENDING, CONFIRMED]).',
  })
  @IsOptional()
  @IsEnum(MeetingStatus, { each: true })
  meetingStates?: MeetingStatus[] | null;
}

/** The arguments of a mutation: one `input` object, its fields reported as `input.*`. */
export function InputArgs<T extends object>(input: InputClass<T>) {
  @ArgsType()
  class Args {
    @Field(() => input, { description: 'The meeting, and what to do with it.' })
    @ValidateNested()
    input!: T;
  }
  return Args;
}
