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
  | { ok: false; fields: Record<string, ValidationReason> };

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
    if (!failed) {
      variables[name] = value;
    }
  }
  return Object.keys(fields).length > 0 ? { ok: false, fields } : { ok: true, variables };
}
