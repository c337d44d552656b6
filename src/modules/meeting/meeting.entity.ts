import { ArrayType, HiddenProps } from '@mikro-orm/core';
import { Check, Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { Node } from '../../platform/graphql/node-interface';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DEFAULT_TIME_ZONE, TIME_ZONE_MAX_LENGTH } from '../../platform/shared/time-zone';
import { RECURRENCE_LIMITS } from './schedule/recurrence.rules';
import { BaseEntity } from '../../platform/shared/base.entity';
import { User } from '../user';

export enum MeetingType {
  ALL_HANDS = 'all-hands',
  ONE_ON_ONE = 'one-on-one',
  TEAM_MEETING = 'team-meeting',
  STANDUP = 'standup',
  PROJECT_MEETING = 'project-meeting',
}
registerEnumType(MeetingType, { name: 'MeetingType', description: 'The kind of meeting.' });

export enum MeetingStatus {
  PENDING = 'pending',
  CONFIRMED = 'confirmed',
  CANCELLED = 'cancelled',
  COMPLETED = 'completed',
}
registerEnumType(MeetingStatus, {
  name: 'MeetingStatus',
  description: 'pending until every participant accepted, then confirmed; or cancelled/completed.',
});

/** How a user stands to a meeting: its owner, or a guest by their answer. */
export enum MeetingRole {
  OWNER = 'owner',
  INVITED = 'new',
  ACCEPTED = 'accepted',
  DECLINED = 'declined',
}
registerEnumType(MeetingRole, {
  name: 'MeetingRole',
  description:
    'How the caller stands to a meeting: owner, or invited (not answered), accepted or declined.',
});

export const MEETING_LIMITS = {
  title: { min: 6, max: 40 },
  location: { min: 6, max: 40 },
  locationUrl: { max: 100 },
  description: { max: 2000 },
  durationMinutes: { min: 5, max: 1440, default: 60 },
  timeZone: { max: TIME_ZONE_MAX_LENGTH },
  /** Reminders before each occurrence: at most `count` distinct minutes, up to four weeks. */
  reminderMinutes: { count: 5, min: 0, max: 40_320, default: [10] },
} as const;

const DURATION = MEETING_LIMITS.durationMinutes;
const REMINDERS = MEETING_LIMITS.reminderMinutes;

/** A meeting owned by one user, with participants (see Participant). */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A meeting with its participants.',
})
@Entity({ tableName: 'meetings' })
@Check({ name: 'meetings_title_length', expression: 'char_length(title) >= 6' })
@Check({ name: 'meetings_location_length', expression: 'char_length(location) >= 6' })
@Check({
  name: 'meetings_duration_range',
  expression: `duration_minutes >= ${DURATION.min} and duration_minutes <= ${DURATION.max}`,
})
@Check({
  name: 'meetings_reminder_minutes_range',
  expression:
    `cardinality(reminder_minutes) <= ${REMINDERS.count} and ` +
    `${REMINDERS.min} <= all(reminder_minutes) and ${REMINDERS.max} >= all(reminder_minutes)`,
})
@Index({ name: 'meetings_owner_start_idx', properties: ['ownerId', 'startTime'] })
@Index({
  name: 'meetings_span_idx',
  expression: 'create index "meetings_span_idx" on "meetings" using gist ("span")',
})
export class Meeting extends BaseEntity<
  | 'type'
  | 'status'
  | 'locationUrl'
  | 'appointedBy'
  | 'assignedTo'
  | 'durationMinutes'
  | 'timeZone'
  | 'description'
  | 'recurrence'
  | 'recurrenceEndsAt'
  | 'sequence'
  | 'reminderMinutes'
> {
  [HiddenProps]?: 'span';

  @Field({ description: 'Title, 6 to 40 characters.' })
  @Property({ length: MEETING_LIMITS.title.max })
  title!: string;

  @Field(() => GraphQLDateTime, { description: 'When the meeting starts (UTC).' })
  @Property({ type: 'datetime' })
  startTime!: Date;

  @Field({ description: 'Where the meeting takes place, 6 to 40 characters.' })
  @Property({ length: MEETING_LIMITS.location.max })
  location!: string;

  @Field(() => MeetingType, { description: 'The kind of meeting (default all-hands).' })
  @Enum({
    items: () => MeetingType,
    nativeEnumName: 'meeting_type',
    default: MeetingType.ALL_HANDS,
  })
  type: MeetingType = MeetingType.ALL_HANDS;

  @Field(() => MeetingStatus, { description: 'The meeting status (default pending).' })
  @Enum({
    items: () => MeetingStatus,
    nativeEnumName: 'meeting_status',
    default: MeetingStatus.PENDING,
  })
  status: MeetingStatus = MeetingStatus.PENDING;

  @Field(() => String, { nullable: true, description: 'Link to join, at most 100 characters.' })
  @Property({ type: 'string', length: MEETING_LIMITS.locationUrl.max, nullable: true })
  locationUrl: string | null = null;

  @Field(() => GraphQLUUID, { description: 'Id of the user who owns the meeting.' })
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'owner_id', deleteRule: 'cascade' })
  ownerId!: string;

  @Field(() => GraphQLUUID, { nullable: true, description: 'Id of the user who appointed it.' })
  @ManyToOne(() => User, {
    mapToPk: true,
    fieldName: 'appointed_by_id',
    nullable: true,
    deleteRule: 'set null',
  })
  appointedBy: string | null = null;

  @Field(() => GraphQLUUID, { nullable: true, description: 'Id of the user it is assigned to.' })
  @ManyToOne(() => User, {
    mapToPk: true,
    fieldName: 'assigned_to_id',
    nullable: true,
    deleteRule: 'set null',
  })
  assignedTo: string | null = null;

  @Field(() => Int, {
    description: `How long each occurrence lasts, ${DURATION.min} to ${DURATION.max} minutes.`,
  })
  @Property({ type: 'integer', default: DURATION.default })
  durationMinutes: number = DURATION.default;

  @Field({
    description:
      'The IANA time zone the meeting is held in (default UTC); a recurrence keeps its ' +
      'wall-clock time in it.',
  })
  @Property({ length: MEETING_LIMITS.timeZone.max, default: DEFAULT_TIME_ZONE })
  timeZone: string = DEFAULT_TIME_ZONE;

  @Field(() => String, { nullable: true, description: 'What the meeting is about.' })
  @Property({ type: 'string', length: MEETING_LIMITS.description.max, nullable: true })
  description: string | null = null;

  @Field(() => String, {
    nullable: true,
    description:
      'How the meeting repeats: an RFC 5545 RRULE (e.g. FREQ=WEEKLY;BYDAY=MO), in wall-clock ' +
      'time of its time zone; null for a single meeting.',
  })
  @Property({ type: 'string', length: RECURRENCE_LIMITS.length, nullable: true })
  recurrence: string | null = null;

  @Field(() => [Int], {
    description:
      'How many minutes before each occurrence its accepted participants and its owner are ' +
      `reminded (by mail, a meeting.reminder webhook and a REMINDER event), smallest first; at most ${REMINDERS.count}, ` +
      `${REMINDERS.min} to ${REMINDERS.max} each (default [${REMINDERS.default.join(', ')}]).`,
  })
  @Property({
    type: new ArrayType((minutes) => Number(minutes)),
    columnType: 'integer[]',
    defaultRaw: `'{${REMINDERS.default.join(',')}}'`,
  })
  reminderMinutes: number[] = [...REMINDERS.default];

  /** When a series' last occurrence ends (null: never, or a single meeting); bounds `span`. */
  @Property({ type: 'datetime', nullable: true })
  recurrenceEndsAt: Date | null = null;

  /**
   * How many times what a calendar shows of the meeting was revised (iCalendar's SEQUENCE): a
   * change of a {@link REVISED_FIELDS} field, or of one occurrence, adds one (MeetingStore.update).
   */
  @Property({ type: 'integer', default: 0 })
  sequence: number = 0;

  /**
   * The time the meeting (or its series) takes, indexed for overlap; the database derives it
   * (trigger meetings_span, migration 20261126220000), the service never reads it.
   */
  @Property({ columnType: 'tstzrange', nullable: true, hidden: true, lazy: true })
  span?: string;
}

/**
 * The fields a calendar entry shows (SUMMARY, DTSTART, DTEND, RRULE, DESCRIPTION, LOCATION, URL,
 * STATUS): a change of one is a new revision of the meeting (`sequence`), so calendar apps that
 * hold an older copy replace it. Who is assigned or appointed, and the kind of meeting, are not.
 */
export const REVISED_FIELDS = [
  'title',
  'startTime',
  'durationMinutes',
  'timeZone',
  'recurrence',
  'description',
  'location',
  'locationUrl',
  'status',
] as const satisfies readonly (keyof Meeting)[];
