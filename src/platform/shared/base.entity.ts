import { OptionalProps } from '@mikro-orm/core';
import { PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { randomUUID } from 'node:crypto';
import { GraphQLDateTime } from './scalars';
import { Field, ID, ObjectType } from 'type-graphql';

/** Columns every table has: a UUID key and creation/update timestamps. */
@ObjectType({ simpleResolvers: true })
export abstract class BaseEntity<Optional extends string = never> {
  /** Properties `em.create` may leave out: generated, defaulted or derived. */
  [OptionalProps]?: 'id' | 'createdAt' | 'updatedAt' | Optional;

  // ID, as the Node interface asks (Relay): the value is the UUID, serialised as it is.
  @Field(() => ID, { description: 'Unique identifier (lowercase UUID).' })
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Field(() => GraphQLDateTime, { description: 'When the record was created (UTC).' })
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Field(() => GraphQLDateTime, { description: 'When the record was last changed (UTC).' })
  @Property({ type: 'datetime', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
