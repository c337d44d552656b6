import { Field, ObjectType } from 'type-graphql';
import { AwayPeriod } from './away-period.entity';
import type { AwayPeriodRecord } from './away-period.store';

@ObjectType({ simpleResolvers: true, description: 'The answer to createAwayPeriod.' })
export class CreateAwayPeriodPayload {
  @Field(() => AwayPeriod, { description: 'The new period.' })
  awayPeriod!: AwayPeriodRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to updateAwayPeriod.' })
export class UpdateAwayPeriodPayload {
  @Field(() => AwayPeriod, { description: 'The period, as now stored.' })
  awayPeriod!: AwayPeriodRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to deleteAwayPeriod.' })
export class DeleteAwayPeriodPayload {
  @Field(() => AwayPeriod, { description: 'The period, as it was.' })
  awayPeriod!: AwayPeriodRecord;
}
