import type { ApolloServerPlugin } from '@apollo/server';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  getOperationAST,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isListType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromAST,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { DEFAULT_SLICE_SIZE } from '../sql/keyset';
import { QueryTooLargeError } from '../shared/errors';
import { MAX_PAGE_SIZE } from '../shared/pagination';

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

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

interface Walk {
  fragments: Fragments;
  variables: Readonly<Record<string, unknown>>;
  /** The modules' bounds on lists. */
  bounds: readonly ListBound[];
  schema: GraphQLSchema;
}

/** The bound a module declares on a list of `inner` under `parent`, whatever its size. */
const declaredBound = (walk: Walk, parent: GraphQLNamedType, inner: GraphQLNamedType) =>
  walk.bounds.find((bound) => parent.name === bound.parent && inner.name.startsWith(bound.items))
    ?.max;

/** The most records a list or slice field can answer per parent, from its arguments. */
function sizeOf(
  walk: Walk,
  parent: GraphQLNamedType,
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
): number {
  const inner = getNamedType(field.type);
  const bound = field.extensions.maxItems ?? declaredBound(walk, parent, inner) ?? UNBOUNDED_LIST;
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

function argumentsOf(
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
const isSlice = (type: GraphQLNamedType): boolean =>
  type.name.endsWith('Connection') || type.name.endsWith('Page');

/**
 * The records a selection set asks for when its parent stands `times` times: each list or slice
 * field adds the records it can hold (its size per parent), and what it selects is counted once
 * per record. A slice's `edges`, `nodes` and `data` are its own records again: not counted twice.
 */
function count(walk: Walk, type: GraphQLNamedType, set: SelectionSetNode, times: number): number {
  // An interface's selections count too: `nodes(ids:) { ... on Meeting { participants } }`.
  if (!isObjectType(type) && !isInterfaceType(type) && !isUnionType(type)) {
    return 0;
  }
  const fields = isUnionType(type) ? {} : type.getFields();
  let total = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = walk.fragments.get(selection.name.value);
      const on = fragment ? walk.schema.getType(fragment.typeCondition.name.value) : undefined;
      total += fragment && on ? count(walk, on, fragment.selectionSet, times) : 0;
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition
        ? walk.schema.getType(selection.typeCondition.name.value)
        : type;
      total += on ? count(walk, on, selection.selectionSet, times) : 0;
      continue;
    }
    const field = fields[selection.name.value];
    if (!field || !selection.selectionSet) {
      continue;
    }
    const inner = getNamedType(field.type);
    const sized = !isSlice(type) && (isSlice(inner) || isListType(getNullableType(field.type)));
    const records = sized
      ? times * sizeOf(walk, type, field, argumentsOf(field, selection, walk.variables))
      : times;
    total += (sized ? records : 0) + count(walk, inner, selection.selectionSet, records);
  }
  return total;
}

/** The most records an operation can answer, given its variables. */
export function countNodes(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  variables: Readonly<Record<string, unknown>> = {},
): number {
  const root = schema.getRootType(operation.operation);
  const walk = { schema, fragments, variables, bounds: schema.extensions.listBounds ?? [] };
  return root ? count(walk, root, operation.selectionSet, 1) : 0;
}

/** {@link countNodes} of a whole document: the operation named (or the only one). */
export function countDocumentNodes(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> = {},
  operationName?: string,
): number {
  const operation = getOperationAST(document, operationName);
  return operation ? countNodes(schema, operation, fragmentsOf(document), variables) : 0;
}

const fragmentsOf = (document: DocumentNode): Fragments =>
  new Map(
    document.definitions
      .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment] as const),
  );

/** Refuses (QueryTooLargeError) an operation that could answer more than MAX_NODES records. */
export function assertWithinNodeLimit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): void {
  const nodes = countNodes(schema, operation, fragmentsOf(document), variables);
  if (nodes > MAX_NODES) {
    throw new QueryTooLargeError(
      nodes,
      MAX_NODES,
      `The operation could answer up to ${nodes} records, more than ${MAX_NODES}: ` +
        `ask for smaller slices (first/last at most ${MAX_PAGE_SIZE}) or fewer nested lists.`,
    );
  }
}

/** Refuses, before anything runs, an operation that could answer more than MAX_NODES records. */
export function nodeLimitPlugin(schema: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request }) {
          if (operation) {
            assertWithinNodeLimit(schema, document, operation, request.variables ?? {});
          }
        },
      };
    },
  };
}
