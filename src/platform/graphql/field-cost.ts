import {
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  isCompositeType,
  type OperationTypeNode,
} from 'graphql';
import { Extensions } from 'type-graphql';

/**
 * What one field costs each time it is answered, beyond the records it answers, in units of one
 * record read: a number, or a function of its arguments (as the selection gives them: variables
 * put in, not coerced, so instants may be text or Date) for work that grows with them.
 */
export type FieldCost = number | ((args: Readonly<Record<string, unknown>>) => number);

declare module 'graphql' {
  // Merged with graphql's own declaration, whose type parameters these must repeat.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    /** The field's cost each time it is answered (see FieldCost), in place of its type's weight. */
    cost?: FieldCost;
    /** How its cost grows, in words, for the schema's readers (shown in its @cost weight). */
    costRule?: string;
  }
}

/**
 * The weights of the IBM cost directive's model (what Apollo Router, Cosmo and Hive Router
 * count): an object answered costs 1, a scalar or enum nothing, a mutation's root field 10 (a
 * write, its transaction, its change log entry and its events); lists multiply by their size.
 */
export const DEFAULT_WEIGHTS = { composite: 1, leaf: 0, mutation: 10 } as const;

/**
 * Declares what a field costs each time it is answered: a weight, or a function of its arguments
 * with the rule in words (`rule`, shown in the schema).
 */
export function Cost(cost: FieldCost, rule?: string): MethodDecorator & PropertyDecorator {
  return Extensions({ cost, ...(rule && { costRule: rule }) });
}

/** The cost of one answer of `field` under `parent`, given its arguments. */
export function fieldCost(
  field: GraphQLField<unknown, unknown>,
  args: Readonly<Record<string, unknown>>,
  root: OperationTypeNode | null,
): number {
  const declared = field.extensions.cost;
  if (declared !== undefined) {
    return typeof declared === 'number' ? declared : Math.max(0, Math.ceil(declared(args)));
  }
  if (root === 'mutation') {
    return DEFAULT_WEIGHTS.mutation;
  }
  return typeWeight(getNamedType(field.type));
}

/** What an answer of a type costs by default: 1 for an object, nothing for a leaf. */
export const typeWeight = (type: GraphQLNamedType): number =>
  isCompositeType(type) ? DEFAULT_WEIGHTS.composite : DEFAULT_WEIGHTS.leaf;

/** Milliseconds of a day, for costs that grow with a window of time. */
const DAY_MS = 86_400_000;

/** The days between two instants as arguments give them (text or Date), at least 1. */
export function daysBetween(from: unknown, to: unknown): number {
  const start = instant(from);
  const end = instant(to);
  return Number.isFinite(start) && Number.isFinite(end)
    ? Math.max(1, Math.ceil((end - start) / DAY_MS))
    : 1;
}

const instant = (value: unknown): number =>
  value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
