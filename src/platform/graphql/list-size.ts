import {
  type FieldNode,
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  valueFromAST,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { DEFAULT_SLICE_SIZE } from '../sql/keyset';

/**
 * A bound a module declares on lists its arguments do not size: under an object of type
 * `parent`, a list of `items` (the type, or its connection and edges: names starting with it)
 * holds at most `max` (a meeting's participants, bounded by the service's cap).
 */
export interface ListBound {
  parent: string;
  items: string;
  max: number;
}

declare module 'graphql' {
  interface GraphQLSchemaExtensions {
    /** The modules' bounds on lists (see ListBound); a list none bounds counts as unbounded. */
    listBounds?: readonly ListBound[];
  }
  // Merged with graphql's own declaration, whose type parameters these must repeat.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    /** The most items a list field answers per parent (its resolver caps it there). */
    maxItems?: number;
  }
}

/** Declares the most items a list field answers per parent, for the node limit to count. */
export const MaxItems = (items: number) => Extensions({ maxItems: items });

/**
 * How many records one operation may ask for at the most, counted before it runs from the
 * document and its arguments (GitHub's rule, with a smaller ceiling): every list multiplies what
 * is selected inside it by the most records it can hold.
 */
export const MAX_NODES = 100_000;

/**
 * What a list nothing bounds counts as (a user's follows without `limit`): the whole budget, so
 * it runs only alone, never under another list nor beside one.
 */
export const UNBOUNDED_LIST = MAX_NODES;

/** The arguments that slice a list: the most items it answers is the one given. */
export const SLICING_ARGUMENTS = ['first', 'last', 'limit'] as const;

/** The bound a module declares on a list of `inner` under `parent`, whatever its size. */
const declaredBound = (
  bounds: readonly ListBound[],
  parent: GraphQLNamedType,
  inner: GraphQLNamedType,
) =>
  bounds.find((bound) => parent.name === bound.parent && inner.name.startsWith(bound.items))?.max;

/** The most items a list field answers per parent whatever its arguments, if anything bounds it. */
export function boundOf(
  bounds: readonly ListBound[],
  parent: GraphQLNamedType,
  field: GraphQLField<unknown, unknown>,
): number | undefined {
  return field.extensions.maxItems ?? declaredBound(bounds, parent, getNamedType(field.type));
}

/** The most records a list or slice field can answer per parent, from its arguments. */
export function sizeOf(
  bounds: readonly ListBound[],
  parent: GraphQLNamedType,
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
): number {
  const bound = boundOf(bounds, parent, field) ?? UNBOUNDED_LIST;
  const first = args['first'] ?? args['last'];
  if (typeof first === 'number') {
    return Math.min(first, bound);
  }
  if (field.args.some((arg) => arg.name === 'first')) {
    return Math.min(DEFAULT_SLICE_SIZE, bound);
  }
  const limit = args['limit'];
  if (typeof limit === 'number') {
    return Math.min(limit, bound);
  }
  // `nodes(ids:)` answers one record per id.
  const ids = args['ids'];
  if (Array.isArray(ids)) {
    return ids.length;
  }
  // A declared bound (a meeting's participants: the cap) holds; `limit: null` (all follows),
  // nothing.
  return bound;
}

/** A field's arguments as a selection gives them (variables put in, defaults filled). */
export function argumentsOf(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const definition of field.args) {
    const given = node.arguments?.find((arg) => arg.name.value === definition.name);
    values[definition.name] = given
      ? valueFromAST(given.value, definition.type, variables)
      : definition.defaultValue;
  }
  return values;
}

/**
 * A slice of a list (`…Connection`, `…Page`): the field answering it counts its records, its own
 * lists (`edges`, `nodes`, `data`) are those records again.
 */
export const isSlice = (type: GraphQLNamedType): boolean =>
  type.name.endsWith('Connection') || type.name.endsWith('Page');
