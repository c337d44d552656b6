import type { GraphQLEnumType } from 'graphql';

/** A JSON Schema or another OpenAPI fragment; kept loose, the linter and the tests check it. */
export type JsonObject = { [keyword: string]: unknown };

/** Scalars in wire form; graphql-scalars' custom ones are strings with a format. */
export const scalarSchemas: Readonly<Record<string, JsonObject>> = {
  String: { type: 'string' },
  // Every id of this API is a UUID (see the Node interface).
  ID: { type: 'string', format: 'uuid' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  UUID: { type: 'string', format: 'uuid' },
  DateTime: { type: 'string', format: 'date-time' },
  LocalDate: { type: 'string', format: 'date' },
  EmailAddress: { type: 'string', format: 'email' },
};

/** An enum as the wire spells it: its internal values (`ALL_HANDS` is `all-hands`). */
export const wireEnumSchema = (type: GraphQLEnumType): JsonObject => ({
  type: 'string',
  enum: type.getValues().map((value) => value.value as unknown),
});

/** The schema, or `null`. */
export function withNull(schema: JsonObject): JsonObject {
  if (typeof schema['$ref'] === 'string') {
    return { anyOf: [schema, { type: 'null' }] };
  }
  const out: JsonObject = { ...schema, type: [schema['type'], 'null'] };
  if (Array.isArray(schema['enum'])) {
    out['enum'] = [...schema['enum'], null];
  }
  return out;
}

/**
 * A record of the REST facade: every field is always present (docs/rest-contract.md §1), so every
 * field is required and an empty optional is `null`; no other field may appear.
 */
export function record(
  description: string | null | undefined,
  properties: Record<string, JsonObject>,
): JsonObject {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  };
}

const string = (extra: JsonObject = {}): JsonObject => ({ type: 'string', ...extra });

const ERROR_CODE = '^[A-Z][A-Z0-9_]*$';

/**
 * The bodies that are not a GraphQL result: the fixed confirmation and the contract's error
 * shapes. The records are derived from the operations (openapi-records.ts).
 */
export const contractSchemas: Readonly<Record<string, JsonObject>> = {
  Message: record('A confirmation.', { message: string({ description: 'What happened.' }) }),
  ErrorCode: record('A failure other than invalid input.', {
    errors: string({ pattern: ERROR_CODE, description: 'The code, e.g. MEETING_NOT_FOUND.' }),
  }),
  ValidationErrors: record('Invalid input: one entry per bad field.', {
    errors: {
      type: 'object',
      description:
        'Field as the client sent it (`q`, `meeting.title`, `participants.[0].user_id`) → ' +
        '`VALIDATION_<FIELD>_<REASON>`.',
      minProperties: 1,
      additionalProperties: string({ pattern: '^VALIDATION_[A-Z0-9_]+$' }),
    },
  }),
  OAuthError: record('An OAuth 2.0 error response (RFC 6749 §5.2).', {
    error: string({
      enum: [
        'invalid_request',
        'invalid_grant',
        'unsupported_grant_type',
        'slow_down',
        'server_error',
        'temporarily_unavailable',
      ],
      description: 'The error code.',
    }),
    error_description: string({ description: 'A human-readable explanation.' }),
  }),
};
