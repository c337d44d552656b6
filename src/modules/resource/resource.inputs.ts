import {
  ArrayMaxSize,
  IsInt,
  IsOptional,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { ConnectionArgs } from '../../platform/graphql/connection';
import { PartialInput, PickInput } from '../../platform/shared/derived-inputs';
import { GraphQLUUID } from '../../platform/shared/scalars';
import { DEFAULT_TIME_ZONE, storedTimeZone } from '../../platform/shared/time-zone';
import {
  IsTimeZone,
  NotBlank,
  TrimmedMaxLength,
  TrimmedMinLength,
} from '../../platform/shared/validation';
import {
  sortedWeek,
  WORKING_HOURS_LIMITS,
  type WorkingPeriodInput,
  WorkingWeekField,
} from '../user';
import type { Resource } from './resource.entity';
import { RESOURCE_LIMITS } from './resource.limits';

const L = RESOURCE_LIMITS;
/** A feature's name: some text besides spaces. */
const NOT_BLANK = /\S/;

@InputType({ description: 'A resource to make (admins only).' })
export class CreateResourceInput {
  @Field({ description: `Its name, ${L.name.min} to ${L.name.max} characters (trimmed).` })
  @NotBlank()
  @TrimmedMinLength(L.name.min)
  @TrimmedMaxLength(L.name.max)
  name!: string;

  @Field(() => Int, {
    description: `How many people it holds, ${L.capacity.min} to ${L.capacity.max}.`,
  })
  @IsInt()
  @Min(L.capacity.min)
  @Max(L.capacity.max)
  capacity!: number;

  @Field(() => String, {
    nullable: true,
    description: `The building, at most ${L.building.max} characters.`,
  })
  @IsOptional()
  @TrimmedMaxLength(L.building.max)
  building?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `The floor, at most ${L.floor.max} characters.`,
  })
  @IsOptional()
  @TrimmedMaxLength(L.floor.max)
  floor?: string | null;

  @Field(() => [String], {
    nullable: true,
    description:
      `What it offers, at most ${L.features.items} names of 1 to ${L.features.length} ` +
      'characters (trimmed, lower-cased; default none).',
  })
  @IsOptional()
  @ArrayMaxSize(L.features.items)
  @MaxLength(L.features.length, { each: true })
  @Matches(NOT_BLANK, { each: true })
  features?: string[] | null;

  @Field(() => String, {
    nullable: true,
    description: `The IANA time zone of its working hours (default ${DEFAULT_TIME_ZONE}).`,
  })
  @IsOptional()
  @IsTimeZone()
  timeZone?: string | null;

  @WorkingWeekField(
    `When suggested times may use it, at most ${WORKING_HOURS_LIMITS.periods} periods in its ` +
      'time zone; null: at any time.',
  )
  workingHours?: WorkingPeriodInput[] | null;
}

/** Features as stored: trimmed, lower-cased, each once, sorted. */
export const storedFeatures = (features: readonly string[]): string[] =>
  [...new Set(features.map((feature) => feature.trim().toLowerCase()))].sort();

/**
 * How each field an admin sets is stored: the one list of a resource's settable fields, which
 * creation and edits both read.
 */
export const STORED_AS = {
  name: (name: string) => name.trim(),
  capacity: (capacity: number) => capacity,
  building: (building: string | null | undefined) => building?.trim() || null,
  floor: (floor: string | null | undefined) => floor?.trim() || null,
  features: (features: string[] | null | undefined) => storedFeatures(features ?? []),
  timeZone: storedTimeZone,
  workingHours: (week: WorkingPeriodInput[] | null | undefined) => (week ? sortedWeek(week) : null),
} satisfies { [K in keyof CreateResourceInput]-?: (value: CreateResourceInput[K]) => Resource[K] };

export type ResourceField = keyof typeof STORED_AS;
export const RESOURCE_FIELDS = Object.keys(STORED_AS) as ResourceField[];

@ArgsType()
export class ResourceIdArgs {
  // Named for what it names, as every input's reference is (an input never takes a bare `id`).
  @Field(() => GraphQLUUID, { description: 'Id of the resource.' })
  resourceId!: string;
}

/** Names the resource a mutation acts on. */
const ResourceRef = PickInput(ResourceIdArgs, ['resourceId']);

@InputType({
  description:
    'Changes to a resource (admins only): the fields given change, with the limits of ' +
    'createResource; null clears building, floor, features and working hours.',
})
export class UpdateResourceInput extends PartialInput(CreateResourceInput, RESOURCE_FIELDS, {
  base: ResourceRef,
}) {}

@InputType({ description: 'The resource to delete (admins only).' })
export class DeleteResourceInput extends ResourceRef {}

@InputType({ description: 'Which resources to list: every condition given must hold.' })
export class ResourceFilterInput {
  @Field(() => Int, { nullable: true, description: 'Only those holding at least this many.' })
  @IsOptional()
  @IsInt()
  @Min(L.capacity.min)
  @Max(L.capacity.max)
  minCapacity?: number | null;

  @Field(() => String, { nullable: true, description: 'Only those in this building (any case).' })
  @IsOptional()
  @TrimmedMaxLength(L.building.max)
  building?: string | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Only those offering every one of these features (any case).',
  })
  @IsOptional()
  @ArrayMaxSize(L.features.items)
  @MaxLength(L.features.length, { each: true })
  features?: string[] | null;
}

@ArgsType()
export class ResourcesArgs extends ConnectionArgs {
  @Field(() => ResourceFilterInput, { nullable: true, description: 'Which resources.' })
  @IsOptional()
  @ValidateNested()
  filter?: ResourceFilterInput | null;
}
