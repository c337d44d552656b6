import {
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type NameNode,
  typeFromAST,
  valueFromAST,
  type VariableDefinitionNode,
  visit,
} from 'graphql';
import { checkValue, intReason, type Report, standIn } from '../src/platform/shared/scalars';
import type { FieldErrors, ValidationReason } from '../src/platform/shared/errors';
import type { PreparedOperation } from './prepared-operation';
import { clientFieldPath, toSnake } from './names';
import { wireFieldsOf } from './wire-inputs';

/** Where a request's values come from, in the order they are looked up. */
export interface RequestValues {
  path: Readonly<Record<string, string>>;
  query: Readonly<Record<string, unknown>>;
  body: Readonly<Record<string, unknown>>;
}

/** The variables for an operation, or the client's bad fields (by the client's names). */
export type GatheredVariables =
  | { ok: true; variables: Record<string, unknown> }
  | {
      ok: false;
      fields: FieldErrors;
      /**
       * The variables with every bad value replaced by a well-typed stand-in: the rules of the
       * input classes still judge the fields that did type-check.
       */
      standIns: Record<string, unknown>;
    };

const INT = /^[+-]?\d+$/;
const MAX_INT = 2_147_483_647;
const MIN_INT = -2_147_483_648;

/** Maps REST enum spellings (`all-hands`) to GraphQL names and snake_case keys to camelCase. */
function fromWire(type: GraphQLInputType, value: unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) {
    return value;
  }
  if (isListType(inner)) {
    return Array.isArray(value)
      ? value.map((item) => fromWire(inner.ofType, item))
      : fromWire(inner.ofType, value);
  }
  if (isEnumType(inner)) {
    const match = inner.getValues().find((candidate) => candidate.value === value);
    return match ? match.name : value;
  }
  if (isInputObjectType(inner) && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    // Unknown keys are dropped: clients may send more than the operation reads.
    for (const field of wireFieldsOf(inner)) {
      const raw = (value as Record<string, unknown>)[toSnake(field.name)];
      if (raw !== undefined) {
        out[field.name] = fromWire(field.type, raw);
      }
    }
    return out;
  }
  return value;
}

/** Query-string values arrive as text: integers are parsed, repeated keys are refused. */
function fromQueryString(
  type: GraphQLInputType,
  raw: unknown,
): { value: unknown } | { reason: ValidationReason } {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (typeof raw !== 'string') {
    return { reason: 'MUST_BE_STRING' };
  }
  if (inner.toString() !== 'Int') {
    return { value: raw };
  }
  const text = raw.trim();
  if (!INT.test(text)) {
    return { reason: 'MUST_BE_INTEGER' };
  }
  const value = Number(text);
  return value > MAX_INT || value < MIN_INT ? { reason: intReason(value) } : { value };
}

/** Where a variable's value is: path, then query (text), then body; null as "not given". */
function lookUp(
  type: GraphQLInputType,
  clientName: string,
  values: RequestValues,
): { value: unknown } | { reason: ValidationReason } {
  let raw: unknown;
  if (clientName in values.path) {
    raw = values.path[clientName];
  } else if (clientName in values.query) {
    const parsed = fromQueryString(type, values.query[clientName]);
    if ('reason' in parsed) {
      return parsed;
    }
    raw = parsed.value;
  } else {
    raw = values.body[clientName];
  }
  // For an optional value, null means "not given", as on the wire records.
  return { value: raw === null && !isNonNullType(type) ? undefined : raw };
}

/** One variable of a route's operation, resolved once at start-up. */
interface VariableSlot {
  name: string;
  /** The client's name for it: snake_case, or the route's rename. */
  clientName: string;
  type: GraphQLInputType;
  defaultValue: VariableDefinitionNode['defaultValue'];
}

/** How a route's variables are gathered: its operation's variables, typed and named for the client. */
export type VariablePlan = readonly VariableSlot[];

/** Resolves an operation's variables once: their types and the client's names for them. */
export function planVariables(
  schema: GraphQLSchema,
  operation: PreparedOperation,
  renames: Readonly<Record<string, string>> = {},
): VariablePlan {
  return (operation.definition.variableDefinitions ?? []).map((definition) => {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type) {
      throw new Error(`${operation.name}: unknown type of variable ${name}`);
    }
    return {
      name,
      clientName: renames[name] ?? toSnake(name),
      type: type as GraphQLInputType,
      defaultValue: definition.defaultValue,
    };
  });
}

/**
 * Builds an operation's variables from the request in one pass: each variable is looked up by its
 * client name (snake_case, or a route's rename) in the path, then the query, then the body; values
 * are converted from their wire form and checked against the variable's type, every bad field
 * reported by the client's name with a reason given by its type.
 */
export function gatherVariables(plan: VariablePlan, values: RequestValues): GatheredVariables {
  const variables: Record<string, unknown> = {};
  const fields: FieldErrors = {};
  for (const { name, clientName, type, defaultValue } of plan) {
    const report: Report = (path, reason) => {
      fields[clientFieldPath([name, ...path], { [name]: clientName })] ??= reason;
    };
    const found = lookUp(type, clientName, values);
    if ('reason' in found) {
      report([], found.reason);
      variables[name] = standIn(type);
      continue;
    }
    if (found.value === undefined) {
      if (defaultValue) {
        variables[name] = valueFromAST(defaultValue, type);
      } else if (isNonNullType(type)) {
        report([], 'REQUIRED');
        variables[name] = standIn(type);
      }
      continue;
    }
    const value = fromWire(type, found.value);
    const before = Object.keys(fields).length;
    const checked = checkValue(type, value, [], report);
    variables[name] = Object.keys(fields).length > before ? checked : value;
  }
  return Object.keys(fields).length > 0
    ? { ok: false, fields, standIns: variables }
    : { ok: true, variables };
}

/**
 * The operation document as the REST facade runs it: every field aliased with its snake_case wire
 * name (`startTime` → `start_time`), so the result's keys already are the contract's and nothing
 * has to walk and copy the result afterwards.
 */
export function withWireNames(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      const key = node.alias?.value ?? node.name.value;
      const wire = toSnake(key);
      if (wire === key) {
        return undefined;
      }
      const alias: NameNode = { kind: Kind.NAME, value: wire };
      return { ...node, alias };
    },
  });
}

const internalValue = (value: unknown): unknown => value;

/**
 * Output serialisation of every enum as its internal value, which is how the contract spells it
 * (`ALL_HANDS` is `all-hands`); values come from our own enum columns.
 */
export function wireEnumSerializers(
  schema: GraphQLSchema,
): Record<string, (value: unknown) => unknown> {
  return Object.fromEntries(
    Object.values(schema.getTypeMap())
      .filter((type) => isEnumType(type) && !type.name.startsWith('__'))
      .map((type) => [type.name, internalValue]),
  );
}
