import { Check, Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { GraphQLDateTime } from '../../platform/shared/scalars';
import { ANSWER_REASON_MAX_LENGTH } from '../meeting';
import { User } from '../user';

/** Why a user is away: out of office (holidays, travel) or focus time. */
export enum AwayKind {
  OUT_OF_OFFICE = 'out_of_office',
  FOCUS = 'focus',
}
registerEnumType(AwayKind, {
  name: 'AwayKind',
  description: 'Why a user is away: OUT_OF_OFFICE (holidays, travel) or FOCUS (focus time).',
});

/** The bounds of time away. */
export const AWAY_LIMITS = {
  /** A title is an answer's reason when the period declines an invitation. */
  title: { min: 1, max: ANSWER_REASON_MAX_LENGTH },
  /** The longest period, in days. */
  days: 366,
  /** Periods myAwayPeriods answers at most (the earliest). */
  listed: 200,
  /** The widest window myAwayPeriods looks at, in days. */
  windowDays: 366,
} as const;

/**
 * A span of time a user is away, [start, end): shown in free/busy as its kind, kept out of
 * suggested times; out of office with `declineInvitations`, invitations then are declined for them.
 */
@ObjectType({ simpleResolvers: true, description: 'A span of time the caller is away.' })
@Entity({ tableName: 'away_periods' })
@Index({ name: 'away_periods_user_end_idx', properties: ['userId', 'end'] })
@Check({ name: 'away_periods_ordered', expression: 'end_time > start_time' })
export class AwayPeriod extends BaseEntity<'declineInvitations'> {
  /** Whose time away it is. */
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  @Field(() => GraphQLDateTime, { description: 'When it starts.' })
  @Property({ type: 'datetime', fieldName: 'start_time' })
  start!: Date;

  @Field(() => GraphQLDateTime, { description: 'When it ends (the instant after it).' })
  @Property({ type: 'datetime', fieldName: 'end_time' })
  end!: Date;

  @Field(() => AwayKind, { description: 'OUT_OF_OFFICE or FOCUS.' })
  @Enum({ items: () => AwayKind, nativeEnumName: 'away_kind' })
  kind!: AwayKind;

  @Field({
    description:
      `What it is, 1 to ${AWAY_LIMITS.title.max} characters: the reason of the invitations it ` +
      'declines; free/busy never shows it.',
  })
  @Property({ length: AWAY_LIMITS.title.max })
  title!: string;

  @Field({
    description:
      'Out of office only: invitations to meetings (or series whose every occurrence) within ' +
      'it are declined for the user, with the title as the reason.',
  })
  @Property({ default: false })
  declineInvitations: boolean = false;
}
