import { MetadataStorage } from '@mikro-orm/core';
import type { GraphQLObjectType } from 'graphql';
import { getMetadataStorage as typeGraphQLStorage } from 'type-graphql';
import { MEETING_LIMITS } from '../src/modules/meeting/meeting.entity';
import { USER_LIMITS } from '../src/modules/user/user.entity';
import type { JsonObject } from './openapi-schemas';

/** Length limits of a type's fields, by GraphQL field name. */
type FieldLimits = Readonly<Record<string, Readonly<{ min?: number; max?: number }>>>;

/**
 * The limit constants of each record type: the ones the input validators and the database
 * columns use, so the document states the same numbers. A type with limits adds a row here; a
 * new field of a listed type only needs its entry in the constant.
 */
const limitsByType: Readonly<Record<string, FieldLimits>> = {
  User: USER_LIMITS,
  Meeting: MEETING_LIMITS,
};

/** The class behind a GraphQL object type (the entity, where one class is both). */
const classOf = (type: GraphQLObjectType): unknown =>
  typeGraphQLStorage().objectTypes.find((objectType) => objectType.name === type.name)?.target;

/** The column default the entity declares for a property (`roles` → `user`), if any. */
function columnDefault(type: GraphQLObjectType, field: string): unknown {
  const target = classOf(type);
  if (target === undefined) {
    return undefined;
  }
  const entity = Object.values(MetadataStorage.getMetadata()).find((meta) => meta.class === target);
  const property: { default?: unknown } | undefined = entity?.properties[field];
  return property?.default ?? undefined;
}

/**
 * What the declarations say about a field beyond its GraphQL type: its length limits and its
 * default, as JSON Schema keywords.
 */
export function fieldFacts(type: GraphQLObjectType, field: string): JsonObject {
  const limits = limitsByType[type.name]?.[field];
  const fallback = columnDefault(type, field);
  return {
    ...(limits?.min !== undefined ? { minLength: limits.min } : {}),
    ...(limits?.max !== undefined ? { maxLength: limits.max } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
  };
}
