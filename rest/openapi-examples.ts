import { validationCode } from '../src/platform/http/http-errors';
import type { ValidationReason } from '../src/platform/shared/errors';
import type { ClientInput } from './openapi-inputs';
import type { JsonObject } from './openapi-schemas';

/** Formats a validator declares; others (int32) state a type's width, not a rule. */
const reasonByFormat: Readonly<Record<string, ValidationReason>> = {
  email: 'INVALID_EMAIL',
  uuid: 'INVALID_UUID',
  'date-time': 'INVALID_DATE',
};

/**
 * The reason a value breaking a JSON Schema keyword is refused with: the keywords come from the
 * inputs' validators (openapi-inputs.ts keywordsOf), so this reads them back in the order the
 * service reports them (src/platform/shared/validation.ts: missing, then length, format, range).
 */
const reasonByKeyword: ReadonlyArray<
  [keyword: string, reason: (value: unknown) => ValidationReason | undefined]
> = [
  // keywordsOf writes minLength 1 for a not-blank rule (no length rule is that short): an empty
  // value is refused as missing.
  ['minLength', (min) => (min === 1 ? 'REQUIRED' : 'TOO_SHORT')],
  ['minItems', () => 'TOO_SHORT'],
  ['maxLength', () => 'TOO_LONG'],
  ['maxItems', () => 'TOO_LONG'],
  ['format', (format) => reasonByFormat[String(format)]],
  ['enum', () => 'INVALID_CHOICE'],
  ['pattern', () => 'INVALID_FORMAT'],
  ['minimum', () => 'TOO_SMALL'],
  ['maximum', () => 'TOO_LARGE'],
];

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A nullable input's schema is `{ anyOf: [schema, { type: 'null' }] }`: the schema itself. */
function unwrapNull(schema: JsonObject): JsonObject {
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) {
    const [first] = anyOf.filter((option) => isObject(option) && option['type'] !== 'null');
    return isObject(first) ? unwrapNull(first) : schema;
  }
  return schema;
}

/**
 * The first field below `schema` (itself included) a value could break, with its reason: the
 * client path as the service reports it (`meeting.title`, `participants.[0].user_id`).
 */
function firstBreakable(path: string, node: JsonObject): [string, ValidationReason] | null {
  const schema = unwrapNull(node);
  for (const [keyword, reasonOf] of reasonByKeyword) {
    const reason = keyword in schema ? reasonOf(schema[keyword]) : undefined;
    if (reason) {
      return [path, reason];
    }
  }
  const properties = schema['properties'];
  if (isObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      const found = isObject(property) ? firstBreakable(`${path}.${name}`, property) : null;
      if (found) {
        return found;
      }
    }
  }
  const items = schema['items'];
  return isObject(items) ? firstBreakable(`${path}.[0]`, items) : null;
}

/** How many fields an example names: enough to show the shape, few enough to read. */
const EXAMPLE_FIELDS = 2;

/**
 * An example 422 body for a route, from its own inputs: for the first inputs a value could
 * break, the code the service answers with (where none has a limit: a required input left out,
 * or a value of the wrong type).
 */
export function validationExample(inputs: readonly ClientInput[]): JsonObject {
  const errors: Record<string, string> = {};
  for (const input of inputs) {
    const found = firstBreakable(input.name, input.schema);
    if (found) {
      errors[found[0]] = validationCode(found[0], found[1]);
    }
    if (Object.keys(errors).length === EXAMPLE_FIELDS) {
      break;
    }
  }
  const input = inputs.find((candidate) => candidate.required) ?? inputs[0];
  if (Object.keys(errors).length === 0 && input) {
    const type = unwrapNull(input.schema)['type'];
    const integer = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
    const reason = input.required ? 'REQUIRED' : integer ? 'MUST_BE_INTEGER' : 'MUST_BE_STRING';
    errors[input.name] = validationCode(input.name, reason);
  }
  return { errors };
}
