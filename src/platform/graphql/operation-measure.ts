import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  getOperationAST,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isListType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldCost, typeWeight } from './field-cost';
import { argumentsOf, isSlice, type ListBound, sizeOf } from './list-size';

/** What an operation can cost at the most, counted from its document before it runs. */
export interface Measure {
  /** The most records it can answer (the node limit's count). */
  nodes: number;
  /** Its cost: each object answered 1, each field's declared work (see field-cost.ts) on top. */
  cost: number;
}

export type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

interface Walk {
  fragments: Fragments;
  variables: Readonly<Record<string, unknown>>;
  /** The modules' bounds on lists. */
  bounds: readonly ListBound[];
  schema: GraphQLSchema;
  /** The operation's kind while its root fields are walked, then null. */
  root: OperationTypeNode | null;
}

/**
 * Adds to `into` what a selection set asks for when its parent stands `times` times: each list or
 * slice field adds the records it can hold (its size per parent), and what it selects is counted
 * once per record. A slice's `edges`, `nodes` and `data` are its own records again: not counted
 * twice. Each object answered costs its weight, each field its declared work once per parent.
 */
function walk(
  state: Walk,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  times: number,
  into: Measure,
  /** Under a slice, how many slices stand: its `pageInfo` and the like stand once per slice. */
  slices = times,
): void {
  // An interface's selections count too: `nodes(ids:) { ... on Meeting { participants } }`.
  if (!isObjectType(type) && !isInterfaceType(type) && !isUnionType(type)) {
    return;
  }
  const fields = isUnionType(type) ? {} : type.getFields();
  const root = state.root;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = state.fragments.get(selection.name.value);
      const on = fragment ? state.schema.getType(fragment.typeCondition.name.value) : undefined;
      if (fragment && on) {
        walk(state, on, fragment.selectionSet, times, into, slices);
      }
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition
        ? state.schema.getType(selection.typeCondition.name.value)
        : type;
      if (on) {
        walk(state, on, selection.selectionSet, times, into, slices);
      }
      continue;
    }
    const field = fields[selection.name.value];
    if (!field) {
      continue;
    }
    const inner = getNamedType(field.type);
    const listed = isListType(getNullableType(field.type));
    // A slice's own lists are its records; anything else of it stands once per slice.
    const standing = isSlice(type) && !listed ? slices : times;
    const sized =
      selection.selectionSet !== undefined && !isSlice(type) && (isSlice(inner) || listed);
    const args =
      sized || typeof field.extensions.cost === 'function'
        ? argumentsOf(field, selection, state.variables)
        : {};
    const declared = field.extensions.cost !== undefined || root === OperationTypeNode.MUTATION;
    const records = sized ? standing * sizeOf(state.bounds, type, field, args) : standing;
    // The field's own work once per parent, then each object it answers (a slice: the page once,
    // its records inside it).
    into.cost +=
      (declared ? standing * fieldCost(field, args, root) : 0) +
      (isSlice(inner) ? standing : records) * typeWeight(inner);
    if (!selection.selectionSet) {
      continue;
    }
    if (sized) {
      into.nodes += records;
    }
    state.root = null;
    walk(state, inner, selection.selectionSet, records, into, standing);
    state.root = root;
  }
}

/** The most records an operation can answer, and its cost, given its variables. */
export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  variables: Readonly<Record<string, unknown>> = {},
): Measure {
  const measure = { nodes: 0, cost: 0 };
  const root = schema.getRootType(operation.operation);
  if (root) {
    const state: Walk = {
      schema,
      fragments,
      variables,
      bounds: schema.extensions.listBounds ?? [],
      root: operation.operation,
    };
    walk(state, root, operation.selectionSet, 1, measure);
  }
  return measure;
}

export const fragmentsOf = (document: DocumentNode): Fragments =>
  new Map(
    document.definitions
      .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment] as const),
  );

/** {@link measureOperation} of a whole document: the operation named (or the only one). */
export function measureDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> = {},
  operationName?: string,
): Measure {
  const operation = getOperationAST(document, operationName);
  return operation
    ? measureOperation(schema, operation, fragmentsOf(document), variables)
    : { nodes: 0, cost: 0 };
}
