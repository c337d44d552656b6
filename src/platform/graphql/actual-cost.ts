import {
  getNamedType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isAbstractType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldCost, typeWeight } from './field-cost';
import { argumentsOf } from './list-size';
import type { Fragments } from './operation-measure';

interface Walk {
  schema: GraphQLSchema;
  fragments: Fragments;
  variables: Readonly<Record<string, unknown>>;
  root: OperationTypeNode | null;
  cost: number;
}

/**
 * The cost of what an operation answered, by the weights the measure before it counted with
 * (operation-measure.ts): each object in the answer its weight, each field's declared work once
 * per parent that answered it. Lists count what they held, not what they could have.
 */
export function actualCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  variables: Readonly<Record<string, unknown>>,
  data: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const root = schema.getRootType(operation.operation);
  if (!root || !data) {
    return 0;
  }
  const state: Walk = { schema, fragments, variables, root: operation.operation, cost: 0 };
  walkObject(state, root, operation.selectionSet, data, null);
  return state.cost;
}

/**
 * Adds the cost of one answered object's selections. `counted` holds the response keys already
 * counted on this object when fragments select the same key again (created only for fragments).
 */
function walkObject(
  state: Walk,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  value: Readonly<Record<string, unknown>>,
  counted: Set<string> | null,
): void {
  // An abstract type's object names its own: the fields are looked up there.
  const typename = value['__typename'];
  const named = isAbstractType(type) && typeof typename === 'string' ? typename : null;
  const own = (named && state.schema.getType(named)) || type;
  const fields = isObjectType(own) ? own.getFields() : {};
  let seen = counted;
  for (const selection of set.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment =
        selection.kind === Kind.FRAGMENT_SPREAD
          ? state.fragments.get(selection.name.value)
          : selection;
      if (!fragment) {
        continue;
      }
      const on = fragment.typeCondition;
      const inner = fragment.selectionSet;
      const condition = on && state.schema.getType(on.name.value);
      seen ??= new Set();
      // Fields are looked up on the object's own type when known, else on the fragment's.
      walkObject(
        state,
        isObjectType(condition) && own === type ? condition : own,
        inner,
        value,
        seen,
      );
      continue;
    }
    const key = selection.alias?.value ?? selection.name.value;
    const field = fields[selection.name.value];
    const answer = value[key];
    if (!field || answer === undefined || seen?.has(key)) {
      continue;
    }
    seen?.add(key);
    const root = state.root;
    if (field.extensions.cost !== undefined || root === OperationTypeNode.MUTATION) {
      const args =
        typeof field.extensions.cost === 'function'
          ? argumentsOf(field, selection, state.variables)
          : {};
      state.cost += fieldCost(field, args, root);
    }
    if (selection.selectionSet && answer !== null) {
      state.root = null;
      walkAnswer(state, getNamedType(field.type), selection.selectionSet, answer);
      state.root = root;
    }
  }
}

/** Adds the cost of a composite field's answer: an object, or a list of them (nested or not). */
function walkAnswer(
  state: Walk,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  answer: unknown,
): void {
  if (Array.isArray(answer)) {
    for (const item of answer) {
      walkAnswer(state, type, set, item);
    }
    return;
  }
  if (answer !== null && typeof answer === 'object') {
    state.cost += typeWeight(type);
    walkObject(state, type, set, answer as Record<string, unknown>, null);
  }
}
