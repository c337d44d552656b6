import { ArrayMaxSize, IsEnum, IsOptional, Matches, ValidateNested } from 'class-validator';
import { Field, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { LaterThan } from '../../platform/shared/validation';

/** The days of the week, as RFC 5545 names them, in ISO order (Monday is 1). */
export enum Weekday {
  MO = 1,
  TU = 2,
  WE = 3,
  TH = 4,
  FR = 5,
  SA = 6,
  SU = 7,
}
registerEnumType(Weekday, { name: 'Weekday', description: 'A day of the week (RFC 5545 names).' });

/** A wall-clock time of day, `HH:MM` (24:00 ends a day); as text, later times sort later. */
export const TIME_OF_DAY = /^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/;

/** One stretch of a working day, wall-clock times in the user's zone. */
export interface WorkingPeriodRecord {
  weekday: Weekday;
  start: string;
  end: string;
}

/** The working week of anyone who has not set theirs: Monday to Friday, 09:00 to 17:00. */
const DEFAULT_DAY = { start: '09:00', end: '17:00' } as const;
const DEFAULT_WEEKDAYS = [Weekday.MO, Weekday.TU, Weekday.WE, Weekday.TH, Weekday.FR] as const;

/** The bounds of working hours, and the week of those who set none. */
export const WORKING_HOURS_LIMITS = {
  /** Periods a week holds at most (four a day). */
  periods: 28,
  defaultDay: DEFAULT_DAY,
  defaultWeekdays: DEFAULT_WEEKDAYS,
  defaultWeek: DEFAULT_WEEKDAYS.map(
    (weekday): WorkingPeriodRecord => ({ weekday, ...DEFAULT_DAY }),
  ) as readonly WorkingPeriodRecord[],
} as const;

@ObjectType({
  simpleResolvers: true,
  description: "A stretch of a working day, wall-clock HH:MM in its owner's time zone.",
})
export class WorkingPeriod implements WorkingPeriodRecord {
  @Field(() => Weekday, { description: 'The day of the week.' })
  weekday!: Weekday;

  @Field({ description: 'When it starts, e.g. 09:00.' })
  start!: string;

  @Field({ description: 'When it ends, e.g. 17:00 (24:00: the end of the day).' })
  end!: string;
}

@InputType({ description: 'A stretch of a working day, wall-clock HH:MM in your time zone.' })
export class WorkingPeriodInput implements WorkingPeriodRecord {
  @Field(() => Weekday, { description: 'The day of the week.' })
  @IsEnum(Weekday)
  weekday!: Weekday;

  @Field({ description: 'When it starts, HH:MM, e.g. 09:00.' })
  @Matches(TIME_OF_DAY)
  start!: string;

  @Field({ description: 'When it ends, HH:MM after start, e.g. 17:00 (24:00 ends the day).' })
  @Matches(TIME_OF_DAY)
  @LaterThan('start')
  end!: string;
}

/** A week's periods as stored: by day, then start (the order answers show). */
export const sortedWeek = (periods: readonly WorkingPeriodRecord[]): WorkingPeriodRecord[] =>
  periods
    .map(({ weekday, start, end }) => ({ weekday, start, end }))
    .sort((a, b) => a.weekday - b.weekday || a.start.localeCompare(b.start));

/** A user's working week: the one they set (none: null), or the default week. */
export const workingWeekOf = (user: {
  workingHours: readonly WorkingPeriodRecord[] | null;
}): readonly WorkingPeriodRecord[] => user.workingHours ?? WORKING_HOURS_LIMITS.defaultWeek;

/**
 * An input's working week: a nullable list of periods (at most WORKING_HOURS_LIMITS.periods),
 * each checked, described by `description` (whose week it is, and what null means).
 */
export const WorkingWeekField =
  (description: string): PropertyDecorator =>
  (target, key) => {
    for (const decorate of [
      Field(() => [WorkingPeriodInput], { nullable: true, description }),
      IsOptional(),
      ArrayMaxSize(WORKING_HOURS_LIMITS.periods),
      ValidateNested({ each: true }),
    ]) {
      decorate(target, key);
    }
  };
