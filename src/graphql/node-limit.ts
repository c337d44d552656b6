import type { ApolloServerPlugin } from '@apollo/server';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromAST,
} from 'graphql';
import { DEFAULT_SLICE_SIZE } from '../db/keyset';
import { MAX_PARTICIPANTS_PER_CREATE } from '../modules/meeting/meeting.inputs';
import { QueryTooLargeError } from '../shared/errors';
import { MAX_PAGE_SIZE } from '../shared/pagination';

/**
 * How many records one operation may ask for at the most, counted before it runs from the
 * document and its arguments (GitHub's rule, with a smaller ceiling): every list multiplies what
 * is selected inside it by the most records it can hold.
 */
export const MAX_NODES = 100_000;

/**
 * What a list without a size argument counts as: as many participants as a meeting may be created
 * with (later additions have no cap, so this is an estimate); connections and `limit` lists count
 * their own size.
 */
export const UNSIZED_LIST_ESTIMATE = MAX_PARTICIPANTS_PER_CREATE;

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

interface Walk {
  schema: GraphQLSchema;
  fragments: Fragments;
  variables: Readonly<Record<string, unknown>>;
}

/** The size a connection or list field asks for, from its arguments. */
function sizeOf(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  const first = args['first'] ?? args['last'];
  if (typeof first === 'number') {
    return first;
  }
  if (field.args.some((arg) => arg.name === 'first')) {
    return DEFAULT_SLICE_SIZE;
  }
  const limit = args['limit'];
  if (typeof limit === 'number') {
    return limit;
  }
  // `nodes(ids:)` answers one record per id.
  const ids = args['ids'];
  if (Array.isArray(ids)) {
    return ids.length;
  }
  // `limit: null` lists everything: counted like any other list without a size.
  return UNSIZED_LIST_ESTIMATE;
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

const isConnection = (type: GraphQLNamedType): boolean => type.name.endsWith('Connection');

/**
 * The records a selection set asks for when its parent stands `times` times: each list or
 * connection field adds the records it can hold (its size per parent), and what it selects is
 * counted once per record. A connection's `edges` and `nodes` are its own records again: not
 * counted twice.
 */
function count(walk: Walk, type: GraphQLNamedType, set: SelectionSetNode, times: number): number {
  if (!isObjectType(type)) {
    return 0;
  }
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
    const field = type.getFields()[selection.name.value];
    if (!field || !selection.selectionSet) {
      continue;
    }
    const inner = getNamedType(field.type);
    const sized =
      !isConnection(type) && (isConnection(inner) || isListType(getNullableType(field.type)));
    const records = sized
      ? times * sizeOf(field, argumentsOf(field, selection, walk.variables))
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
  return root ? count({ schema, fragments, variables }, root, operation.selectionSet, 1) : 0;
}

/** Refuses (QueryTooLargeError) an operation that could answer more than MAX_NODES records. */
export function assertWithinNodeLimit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): void {
  const fragments = new Map(
    document.definitions
      .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment] as const),
  );
  const nodes = countNodes(schema, operation, fragments, variables);
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
