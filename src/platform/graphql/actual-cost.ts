import {
  type FieldNode,
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  isAbstractType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldCost, typeWeight } from './field-cost';
import { argumentsOf } from './list-size';
import type { Fragments } from './operation-measure';

/** A field of a selection set that costs something: its own work, or the objects it answers. */
interface Step {
  key: string;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** Its declared work (or a mutation's root field): counted once per parent answering it. */
  own: boolean;
  /** What it selects of the objects it answers, if it answers objects. */
  inner: { type: GraphQLNamedType; set: SelectionSetNode } | null;
}

/** Of one selection set on one type, the fields that cost something, each response key once. */
type Plan = readonly Step[];

interface Walk {
  schema: GraphQLSchema;
  fragments: Fragments;
  variables: Readonly<Record<string, unknown>>;
  cost: number;
}

/**
 * Plans by selection set and the type it is read on. A document recurs as the same object
 * (Apollo's document store), so an operation's plans are made once: a walk then visits only the
 * fields that cost (objects, lists of them, declared work), never the scalars beside them, which
 * made every answer's walk several times dearer (273 µs for 20 meetings of 15 participants with
 * their users, against 12 µs for the measure before it).
 */
const plans = new WeakMap<SelectionSetNode, Map<string, Plan>>();

function planOf(walk: Walk, type: GraphQLNamedType, set: SelectionSetNode, root: boolean): Plan {
  let byType = plans.get(set);
  if (!byType) {
    byType = new Map();
    plans.set(set, byType);
  }
  const name = root ? `${type.name} (root)` : type.name;
  let plan = byType.get(name);
  if (!plan) {
    const steps: Step[] = [];
    collect(walk, type, set, root, steps, new Set());
    plan = steps;
    byType.set(name, plan);
  }
  return plan;
}

/**
 * Adds the costing fields of `set` read on `type` to `steps`: fragments whose type the object may
 * be are read through (on an abstract type whose object does not name its own, all of them).
 */
function collect(
  walk: Walk,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  root: boolean,
  steps: Step[],
  keys: Set<string>,
): void {
  const fields = fieldsOf(type);
  for (const selection of set.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment =
        selection.kind === Kind.FRAGMENT_SPREAD
          ? walk.fragments.get(selection.name.value)
          : selection;
      const on = fragment?.typeCondition && walk.schema.getType(fragment.typeCondition.name.value);
      if (fragment && applies(walk.schema, type, on)) {
        collect(
          walk,
          isObjectType(on) && !isObjectType(type) ? on : type,
          fragment.selectionSet,
          root,
          steps,
          keys,
        );
      }
      continue;
    }
    const key = selection.alias?.value ?? selection.name.value;
    const field = fields[selection.name.value];
    if (!field || keys.has(key)) {
      continue;
    }
    const own = field.extensions.cost !== undefined || root;
    const inner = selection.selectionSet
      ? { type: getNamedType(field.type), set: selection.selectionSet }
      : null;
    if (own || inner) {
      keys.add(key);
      steps.push({ key, field, node: selection, own, inner });
    }
  }
}

const fieldsOf = (type: GraphQLNamedType): Record<string, GraphQLField<unknown, unknown>> =>
  isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};

/** Whether a fragment on `on` applies to an object read as `type`. */
function applies(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  on: GraphQLNamedType | null | undefined,
): boolean {
  if (!on || on === type) {
    return true;
  }
  if (isObjectType(type)) {
    return isAbstractType(on) && schema.isSubType(on, type);
  }
  // Read on an abstract type (its object named no type of its own): each fragment may apply.
  return true;
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
  const walk: Walk = { schema, fragments, variables, cost: 0 };
  const plan = planOf(
    walk,
    root,
    operation.selectionSet,
    operation.operation === OperationTypeNode.MUTATION,
  );
  answerObject(walk, plan, data, operation.operation === OperationTypeNode.MUTATION);
  return walk.cost;
}

function answerObject(
  walk: Walk,
  plan: Plan,
  value: Readonly<Record<string, unknown>>,
  root: boolean,
): void {
  for (const step of plan) {
    const answer = value[step.key];
    if (answer === undefined) {
      continue;
    }
    if (step.own) {
      const args =
        typeof step.field.extensions.cost === 'function'
          ? argumentsOf(step.field, step.node, walk.variables)
          : {};
      walk.cost += fieldCost(step.field, args, root ? OperationTypeNode.MUTATION : null);
    }
    if (step.inner && answer !== null) {
      answerValue(walk, step.inner.type, step.inner.set, answer);
    }
  }
}

/** Adds the cost of a composite field's answer: an object, or a list of them (nested or not). */
function answerValue(
  walk: Walk,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  answer: unknown,
): void {
  if (answer === null || typeof answer !== 'object') {
    return;
  }
  if (!isAbstractType(type)) {
    // One plan for every object of the answer, however many a list holds.
    answerOfType(walk, planOf(walk, type, set, false), typeWeight(type), answer);
    return;
  }
  if (Array.isArray(answer)) {
    for (const item of answer) {
      answerValue(walk, type, set, item);
    }
    return;
  }
  // An abstract type's object names its own when asked for `__typename`: its plan is that type's.
  const value = answer as Record<string, unknown>;
  const typename = value['__typename'];
  const own = (typeof typename === 'string' && walk.schema.getType(typename)) || type;
  walk.cost += typeWeight(type);
  answerObject(walk, planOf(walk, own, set, false), value, false);
}

/** An object of a known type, or a list of them (nested or not): each its weight and its plan. */
function answerOfType(walk: Walk, plan: Plan, weight: number, answer: unknown): void {
  if (Array.isArray(answer)) {
    for (const item of answer) {
      answerOfType(walk, plan, weight, item);
    }
    return;
  }
  if (answer !== null && typeof answer === 'object') {
    walk.cost += weight;
    answerObject(walk, plan, answer as Record<string, unknown>, false);
  }
}
