import {
  coerceInputValue,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  valueFromAST,
  type VariableDefinitionNode,
} from 'graphql';
import type { FieldErrors, ValidationReason } from '../src/shared/errors';
import type { PreparedOperation } from './operations';
import { clientFieldPath, toCamel, toSnake } from './names';

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
      fields: Record<string, ValidationReason>;
      /** The variables with every bad value replaced by a well-typed stand-in, for a dry run. */
      standIns: Record<string, unknown>;
    };

const INT = /^[+-]?\d+$/;

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
    const fields = inner.getFields();
    const out: Record<string, unknown> = {};
    // Unknown keys are dropped: clients may send more than the operation reads.
    for (const [name, field] of Object.entries(fields)) {
      const raw = (value as Record<string, unknown>)[toSnake(name)];
      if (raw !== undefined) {
        out[name] = fromWire(field.type, raw);
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
  if (inner.toString() === 'Int') {
    if (!INT.test(raw.trim())) {
      return { reason: 'MUST_BE_INTEGER' };
    }
    const value = Number(raw.trim());
    if (value > 2_147_483_647) {
      return { reason: 'TOO_LARGE' };
    }
    if (value < -2_147_483_648) {
      return { reason: 'TOO_SMALL' };
    }
    return { value };
  }
  return { value: raw };
}

function reasonOf(message: string, value: unknown): ValidationReason {
  if (/was not provided|Expected non-nullable type|non-null type/.test(message)) {
    return 'REQUIRED';
  }
  if (/String cannot represent/.test(message)) {
    return 'MUST_BE_STRING';
  }
  if (/non 32-bit signed integer/.test(message)) {
    return typeof value === 'number' && value < 0 ? 'TOO_SMALL' : 'TOO_LARGE';
  }
  if (/Int cannot represent/.test(message)) {
    return 'MUST_BE_INTEGER';
  }
  if (/enum|Enum/.test(message)) {
    return 'INVALID_CHOICE';
  }
  return 'INVALID_FORMAT';
}

/** A value of the type that passes coercion (its content is never used, only validated). */
function standIn(type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    return [];
  }
  if (isEnumType(inner)) {
    return inner.getValues()[0]?.name;
  }
  if (isInputObjectType(inner)) {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(inner.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined) {
        out[name] = standIn(field.type);
      }
    }
    return out;
  }
  return inner.toString() === 'Int' || inner.toString() === 'Float'
    ? 0
    : inner.toString() === 'Boolean'
      ? false
      : '';
}

/** The value with each part that fails coercion replaced by a stand-in, the rest kept. */
function repaired(type: GraphQLInputType, value: unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) {
    return isNonNullType(type) ? standIn(type) : value;
  }
  if (isListType(inner)) {
    return (Array.isArray(value) ? value : [value]).map((item) => repaired(inner.ofType, item));
  }
  if (isInputObjectType(inner)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      return standIn(type);
    }
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(inner.getFields())) {
      const fieldValue = (value as Record<string, unknown>)[name];
      if (fieldValue !== undefined || isNonNullType(field.type)) {
        out[name] = repaired(field.type, fieldValue);
      }
    }
    return out;
  }
  try {
    coerceInputValue(value, inner);
    return value;
  } catch {
    return standIn(type);
  }
}

function variableType(schema: GraphQLSchema, definition: VariableDefinitionNode): GraphQLInputType {
  const type = typeFromAST(schema, definition.type);
  if (!type) {
    throw new Error(`unknown variable type ${definition.type.kind}`);
  }
  return type as GraphQLInputType;
}

/**
 * Builds an operation's variables from the request: each variable is looked up by its client
 * name (snake_case, or a route's rename) in the path, then the query, then the body; values are
 * converted from their wire form and checked against the variable's type.
 */
export function gatherVariables(
  schema: GraphQLSchema,
  operation: PreparedOperation,
  values: RequestValues,
  renames: Readonly<Record<string, string>> = {},
): GatheredVariables {
  const variables: Record<string, unknown> = {};
  const fields: FieldErrors = {};
  for (const definition of operation.definition.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const clientName = renames[name] ?? toSnake(name);
    const type = variableType(schema, definition);
    let raw: unknown;
    if (clientName in values.path) {
      raw = values.path[clientName];
    } else if (clientName in values.query) {
      const parsed = fromQueryString(type, values.query[clientName]);
      if ('reason' in parsed) {
        fields[clientName] = parsed.reason;
        variables[name] = standIn(type);
        continue;
      }
      raw = parsed.value;
    } else {
      raw = values.body[clientName];
    }
    // For an optional value, null means "not given", as on the wire records.
    if (raw === null && !isNonNullType(type)) {
      raw = undefined;
    }
    if (raw === undefined) {
      if (isNonNullType(type) && !definition.defaultValue) {
        fields[clientName] = 'REQUIRED';
        variables[name] = standIn(type);
      } else if (definition.defaultValue) {
        variables[name] = valueFromAST(definition.defaultValue, type);
      }
      continue;
    }
    const value = fromWire(type, raw);
    let failed = false;
    coerceInputValue(value, type, (path, invalid, error) => {
      failed = true;
      // A missing field of an input object is reported at the object; name the field itself.
      const missing = /^Field "([^"]+)" of required type/.exec(error.message)?.[1];
      const segments = [toCamel(clientName), ...path, ...(missing ? [missing] : [])];
      const at = clientFieldPath(segments, { [toCamel(clientName)]: clientName });
      fields[at] ??= reasonOf(error.message, invalid);
    });
    variables[name] = failed ? repaired(type, value) : value;
  }
  return Object.keys(fields).length > 0
    ? { ok: false, fields, standIns: variables }
    : { ok: true, variables };
}
