import { Check, Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { Node } from '../../platform/graphql/node-interface';
import { DEFAULT_TIME_ZONE, TIME_ZONE_MAX_LENGTH } from '../../platform/shared/time-zone';
import { MaxItems } from '../../platform/graphql/list-size';
import { WORKING_HOURS_LIMITS, WorkingPeriod, type WorkingPeriodRecord } from '../user';
import { RESOURCE_LIMITS } from './resource.limits';

/**
 * A room or other bookable thing (a projector, a car): made and changed by admins, listed to
 * everyone signed in, booked by meetings (never two overlapping bookings of one resource, which
 * the database's exclusion constraint on resource_bookings enforces).
 */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A room or other resource meetings book (never two at overlapping times).',
})
@Entity({ tableName: 'resources' })
@Index({ name: 'resources_name_id_idx', properties: ['name', 'id'] })
@Check({ name: 'resources_capacity_range', expression: 'capacity >= 1' })
export class Resource extends BaseEntity<
  'building' | 'floor' | 'features' | 'timeZone' | 'workingHours'
> {
  @Field({
    description: `Its name, ${RESOURCE_LIMITS.name.min} to ${RESOURCE_LIMITS.name.max} characters.`,
  })
  @Property({ length: RESOURCE_LIMITS.name.max })
  name!: string;

  @Field(() => Int, { description: 'How many people it holds (a room), at least 1.' })
  @Property({ type: 'integer' })
  capacity!: number;

  @Field(() => String, { nullable: true, description: 'The building it is in, if any.' })
  @Property({ type: 'string', length: RESOURCE_LIMITS.building.max, nullable: true })
  building: string | null = null;

  @Field(() => String, { nullable: true, description: 'The floor it is on, if any.' })
  @Property({ type: 'string', length: RESOURCE_LIMITS.floor.max, nullable: true })
  floor: string | null = null;

  @Field(() => [String], {
    description: 'What it offers (e.g. projector, whiteboard), as admins name it; sorted.',
  })
  @Property({ type: 'json', defaultRaw: "'[]'" })
  features: string[] = [];

  @Field({ description: 'The IANA time zone its working hours are read in (default UTC).' })
  @Property({ length: TIME_ZONE_MAX_LENGTH, default: DEFAULT_TIME_ZONE })
  timeZone: string = DEFAULT_TIME_ZONE;

  @Field(() => [WorkingPeriod], {
    nullable: true,
    description:
      'When it may be booked through suggested times, wall-clock periods in its time zone; ' +
      'null: at any time.',
  })
  @MaxItems(WORKING_HOURS_LIMITS.periods)
  @Property({ type: 'json', nullable: true })
  workingHours: WorkingPeriodRecord[] | null = null;
}
