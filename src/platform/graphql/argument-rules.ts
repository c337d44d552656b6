import {
  getArgumentValues,
  getVariableValues,
  GraphQLScalarType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { type AuthContext, requireViewer } from '../auth/tokens';
import type { FieldErrors } from '../shared/errors';
import { fieldErrorsOf } from '../shared/validation';

type Storage = ReturnType<typeof getMetadataStorage>;
type ResolverMetadata = Storage['queries'][number];
type FieldMetadata = NonNullable<Storage['inputTypes'][number]['fields']>[number];
type Constructor = new () => object;

/** The resolver declared for a root field (type-graphql's metadata, complete once built). */
function resolverOf(operation: OperationDefinitionNode['operation'], field: string) {
  const storage = getMetadataStorage();
  const resolvers: ResolverMetadata[] =
    operation === 'mutation' ? storage.mutations : operation === 'query' ? storage.queries : [];
  return resolvers.find((resolver) => resolver.schemaName === field);
}

/** The fields of an args or input class, its superclasses' included (own fields first). */
function classFields(target: unknown): FieldMetadata[] | null {
  const storage = getMetadataStorage();
  const classes = [...storage.argumentTypes, ...storage.inputTypes];
  if (typeof target !== 'function' || !classes.some((meta) => meta.target === target)) {
    return null;
  }
  const fields: FieldMetadata[] = [];
  for (let current = target; current.prototype !== undefined; ) {
    const meta = classes.find((candidate) => candidate.target === current);
    const known = new Set(fields.map((field) => field.name));
    fields.push(...(meta?.fields ?? []).filter((field) => !known.has(field.name)));
    current = Object.getPrototypeOf(current) as typeof current;
  }
  return fields;
}

/** The value as an instance of its class, nested inputs too, as type-graphql gives resolvers. */
function instanceOf(target: unknown, value: unknown): unknown {
  if (value === null || value === undefined || target instanceof GraphQLScalarType) {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((item) => instanceOf(target, item));
  }
  const fields = classFields(target);
  if (!fields || typeof value !== 'object') {
    return value;
  }
  const data: Record<string, unknown> = {};
  for (const field of fields) {
    const fieldValue = (value as Record<string, unknown>)[field.name];
    if (fieldValue !== undefined) {
      data[field.name] = instanceOf(field.getType(), fieldValue);
    }
  }
  const instance = new (target as Constructor)() as Record<string, unknown>;
  // Declared but unset properties are not there, as in type-graphql's conversion.
  for (const key of Object.keys(instance)) {
    if (instance[key] === undefined && !(key in data)) {
      delete instance[key];
    }
  }
  return Object.assign(instance, data);
}

/** Where an operation passes a variable: the argument path its value lands at. */
export interface VariablePosition {
  variable: string;
  /**
   * The path as the argument rules name failures: from the argument of an args class
   * (`input.meetingId`), from inside the value of a single `@Arg` (`dob`).
   */
  path: ReadonlyArray<string | number>;
}

/** Every variable passed (whole, or inside an object or list) to an argument of a root field. */
export function variablePositions(definition: OperationDefinitionNode): VariablePosition[] {
  const positions: VariablePosition[] = [];
  const walk = (value: ValueNode, path: ReadonlyArray<string | number>): void => {
    if (value.kind === Kind.VARIABLE) {
      positions.push({ variable: value.name.value, path });
    } else if (value.kind === Kind.OBJECT) {
      value.fields.forEach((field) => walk(field.value, [...path, field.name.value]));
    } else if (value.kind === Kind.LIST) {
      value.values.forEach((item, index) => walk(item, [...path, index]));
    }
  };
  for (const node of definition.selectionSet.selections) {
    if (node.kind !== Kind.FIELD) {
      continue;
    }
    const params = resolverOf(definition.operation, node.name.value)?.params ?? [];
    for (const argument of node.arguments ?? []) {
      const single = params.some((p) => p.kind === 'arg' && p.name === argument.name.value);
      walk(argument.value, single ? [] : [argument.name.value]);
    }
  }
  return positions;
}

const startsWith = (path: ReadonlyArray<string | number>, prefix: ReadonlyArray<string | number>) =>
  prefix.length <= path.length && prefix.every((segment, i) => String(path[i]) === String(segment));

/** A failure inside a variable (`[variable, ...inside]`) as the argument rules would name it. */
export function argumentPathOf(
  positions: readonly VariablePosition[],
  variablePath: ReadonlyArray<string | number>,
): ReadonlyArray<string | number> {
  const [variable, ...inside] = variablePath;
  const position = positions.find((candidate) => candidate.variable === variable);
  return position ? [...position.path, ...inside] : variablePath;
}

/** An argument rule's failure path as the path inside the variable that carried the value. */
export function variablePathOf(
  positions: readonly VariablePosition[],
  argumentPath: ReadonlyArray<string | number>,
): ReadonlyArray<string | number> {
  const position = positions
    .filter((candidate) => startsWith(argumentPath, candidate.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
  return position ? [position.variable, ...argumentPath.slice(position.path.length)] : argumentPath;
}

/**
 * Type failures with the rule failures of the other fields: a field that failed its type is
 * reported for that alone, not for the rules its stand-in breaks.
 */
export function besideTypeFailures(typed: FieldErrors, rules: FieldErrors): FieldErrors {
  const bad = Object.keys(typed);
  const beside = Object.entries(rules).filter(
    ([path]) => !bad.some((field) => path === field || path.startsWith(`${field}.`)),
  );
  return { ...Object.fromEntries(beside), ...typed };
}

/** Whether any root field of the operation is `@Authorized()`: it needs a caller. */
export function operationNeedsViewer(definition: OperationDefinitionNode): boolean {
  return definition.selectionSet.selections.some(
    (node) =>
      node.kind === Kind.FIELD &&
      resolverOf(definition.operation, node.name.value)?.roles !== undefined,
  );
}

/**
 * Judges an operation's root field arguments without running any resolver, in the order a
 * resolver would: the caller first (for `@Authorized` fields; throws UnauthenticatedError), then
 * the rules of the argument classes, through the same helper as type-graphql's `validateFn`.
 * `variables` must type-check (the REST edge passes stand-ins for the values that did not).
 * Answers the first failing field's rule failures by argument path; empty when none fails.
 */
export async function argumentRuleFailures(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  context: AuthContext,
): Promise<FieldErrors> {
  const root = schema.getRootType(definition.operation);
  const coerced = getVariableValues(schema, definition.variableDefinitions ?? [], variables);
  if (!root || !('coerced' in coerced)) {
    return {};
  }
  for (const node of definition.selectionSet.selections) {
    if (node.kind !== Kind.FIELD) {
      continue;
    }
    const field = root.getFields()[node.name.value];
    const resolver = field && resolverOf(definition.operation, field.name);
    if (!field || !resolver) {
      continue;
    }
    if (resolver.roles !== undefined) {
      requireViewer(context);
    }
    const args = getArgumentValues(field, node, coerced.coerced);
    for (const param of resolver.params ?? []) {
      const failures =
        param.kind === 'args'
          ? await fieldErrorsOf(instanceOf(param.getType(), args))
          : param.kind === 'arg'
            ? await fieldErrorsOf(instanceOf(param.getType(), args[param.name]))
            : {};
      if (Object.keys(failures).length > 0) {
        return failures;
      }
    }
  }
  return {};
}
