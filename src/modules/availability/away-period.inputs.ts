import { IsBoolean, IsEnum, IsOptional } from 'class-validator';
import { ArgsType, Field, InputType } from 'type-graphql';
import { PartialInput, PickInput } from '../../platform/shared/derived-inputs';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { IsInstant, LaterThan, NotBlank, TrimmedMaxLength } from '../../platform/shared/validation';
import { AwayKind, AWAY_LIMITS } from './away-period.entity';

const PERIOD_ID = 'Id of one of the caller’s away periods.';

@InputType({ description: 'A span of time the caller will be away.' })
export class CreateAwayPeriodInput {
  @Field(() => GraphQLDateTime, { description: 'When it starts.' })
  @IsInstant()
  start!: Date;

  @Field(() => GraphQLDateTime, {
    description: `When it ends: after start, at most ${AWAY_LIMITS.days} days later.`,
  })
  @IsInstant()
  @LaterThan('start')
  end!: Date;

  @Field(() => AwayKind, { description: 'OUT_OF_OFFICE or FOCUS.' })
  @IsEnum(AwayKind)
  kind!: AwayKind;

  @Field({ description: `What it is, 1 to ${AWAY_LIMITS.title.max} characters (trimmed).` })
  @NotBlank()
  @TrimmedMaxLength(AWAY_LIMITS.title.max)
  title!: string;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'OUT_OF_OFFICE only: decline invitations to meetings within it, with the title as the ' +
      'reason (default false).',
  })
  @IsOptional()
  @IsBoolean()
  declineInvitations?: boolean | null;
}

@ArgsType()
export class AwayPeriodIdArgs {
  @Field(() => GraphQLUUID, { description: PERIOD_ID })
  awayPeriodId!: string;
}

/** Names the away period a mutation acts on. */
const AwayPeriodRef = PickInput(AwayPeriodIdArgs, ['awayPeriodId']);

@InputType({
  description:
    'Changes to one of the caller’s away periods: only the fields given change, with the ' +
    'limits of createAwayPeriod.',
})
export class UpdateAwayPeriodInput extends PartialInput(
  CreateAwayPeriodInput,
  ['start', 'end', 'kind', 'title', 'declineInvitations'],
  { base: AwayPeriodRef },
) {}

@InputType({ description: 'The away period to delete.' })
export class DeleteAwayPeriodInput extends AwayPeriodRef {}

@ArgsType()
export class MyAwayPeriodsArgs {
  @Field(() => GraphQLDateTime, { description: 'Periods that end after this time.' })
  @IsInstant()
  from!: Date;

  @Field(() => GraphQLDateTime, {
    description: `Periods that start before this time, at most ${AWAY_LIMITS.windowDays} days after from.`,
  })
  @IsInstant()
  to!: Date;
}
