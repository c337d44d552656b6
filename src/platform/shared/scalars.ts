import { isISO8601, isUUID } from 'class-validator';
import {
  GraphQLError,
  type GraphQLInputType,
  type GraphQLLeafType,
  GraphQLScalarType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  type ValueNode,
} from 'graphql';
import { isValidationReason, type ValidationReason } from './errors';
import {
  GraphQLDateTime as DateTimeScalar,
  GraphQLEmailAddress as EmailAddressScalar,
  GraphQLLocalDate as LocalDateScalar,
  GraphQLUUID as UUIDScalar,
} from 'graphql-scalars';

/** A refused input value, with the contract's reason for it (read by scalarFailureReason). */
const refusal = (name: string, reason: ValidationReason): GraphQLError =>
  new GraphQLError(`${name} cannot represent this value`, { extensions: { reason } });

/**
 * How a text scalar reads input: text only (else MUST_BE_STRING), judged by `accepts` (else
 * `reason`), then `parse`d. The same rule for variables and literals, so both faces agree.
 */
interface TextInput {
  accepts: (text: string) => boolean;
  reason: ValidationReason;
  parse?: (text: string) => unknown;
  /** A value the scalar accepts: the REST edge puts it where a bad value was, to judge the rest. */
  standIn: string;
  /** What the schema says of the scalar, where ours reads input differently from the original. */
  description?: string;
}

function textInput(name: string, input: TextInput) {
  const parseValue = (value: unknown): unknown => {
    if (typeof value !== 'string') {
      throw refusal(name, 'MUST_BE_STRING');
    }
    if (!input.accepts(value)) {
      throw refusal(name, input.reason);
    }
    return input.parse ? input.parse(value) : value;
  };
  return {
    parseValue,
    parseLiteral: (node: ValueNode): unknown =>
      parseValue(node.kind === Kind.STRING ? node.value : undefined),
    extensions: { standIn: input.standIn },
  };
}

/**
 * graphql-scalars' types, unchanged in the schema, with our input rules (`input`: what the REST
 * face accepted as text before they were typed, with the contract's reasons) and a lean
 * `serialize`: output values come from our own typed columns (uuid, date, timestamptz, checked
 * e-mail), so checking each one again with a regular expression only costs time on every field.
 */
function typed(
  scalar: GraphQLScalarType,
  serialize: (value: unknown) => string,
  input?: TextInput,
): GraphQLScalarType {
  return new GraphQLScalarType({
    ...scalar.toConfig(),
    serialize,
    ...(input ? textInput(scalar.name, input) : {}),
    ...(input?.description ? { description: input.description } : {}),
  });
}

const cannotRepresent = (name: string, value: unknown): GraphQLError =>
  new GraphQLError(`${name} cannot represent a value of type ${typeof value}`);

function text(name: string): (value: unknown) => string {
  return (value) => {
    if (typeof value !== 'string') {
      throw cannotRepresent(name, value);
    }
    return value;
  };
}

/**
 * Any version of UUID, in either case (as the REST face always took them), read in lower case:
 * the form the database answers, so resolvers and services compare and look ids up as given.
 */
export const GraphQLUUID = typed(UUIDScalar, text(UUIDScalar.name), {
  accepts: (value) => isUUID(value),
  reason: 'INVALID_UUID',
  parse: (value) => value.toLowerCase(),
  standIn: '00000000-0000-0000-0000-000000000000',
});

export const GraphQLEmailAddress = typed(EmailAddressScalar, text(EmailAddressScalar.name));

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date, YYYY-MM-DD, that exists (2020-02-30 does not). */
export const GraphQLLocalDate = typed(LocalDateScalar, text(LocalDateScalar.name), {
  accepts: (value) => LOCAL_DATE.test(value) && isISO8601(value, { strict: true }),
  reason: 'INVALID_DATE',
  standIn: '2000-01-01',
});

/**
 * Timestamps: read models carry them as ISO 8601 text in UTC with milliseconds already. Input is
 * any strict ISO 8601 text, read as a Date; a form Date cannot read (a week date) is an invalid
 * Date, which the field's own rules refuse (IsFuture, IsInstant), as they did when it was text.
 */
export const GraphQLDateTime = typed(DateTimeScalar, text(DateTimeScalar.name), {
  accepts: (value) => isISO8601(value, { strict: true }),
  reason: 'INVALID_DATE',
  description:
    'A date-time. Answered in UTC with milliseconds (2026-11-22T09:30:00.000Z); taken as any ' +
    'strict ISO 8601 date-time (an offset other than Z is converted).',
  parse: (value) => new Date(value),
  standIn: '2000-01-01T00:00:00.000Z',
});

/** The value an input scalar accepts for sure (see TextInput.standIn), if it declares one. */
export function scalarStandIn(scalar: GraphQLScalarType): unknown {
  return scalar.extensions['standIn'];
}

/**
 * Why a scalar refused an input value: a scalar of ours may say so as a typed error
 * (`extensions.reason`, one of the contract's reasons); any other refusal is a bad format.
 */
export function scalarFailureReason(error: unknown): ValidationReason {
  const reason = error instanceof GraphQLError ? error.extensions['reason'] : undefined;
  return isValidationReason(reason) ? reason : 'INVALID_FORMAT';
}

/** Where a value sits inside a variable or argument: keys and list indexes. */
export type Path = ReadonlyArray<string | number>;

/** Receives each bad part of a value with the contract's reason. */
export type Report = (path: Path, reason: ValidationReason) => void;

/** Why an Int refuses a value: not an integer, or outside 32 bits. */
export function intReason(value: unknown): ValidationReason {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return 'MUST_BE_INTEGER';
  }
  return value < 0 ? 'TOO_SMALL' : 'TOO_LARGE';
}

/**
 * Why a leaf type refuses a value, from the type itself and a scalar's own typed error. Blank
 * text where a typed scalar (an id, a date) is required is a value not given: REQUIRED.
 */
function leafReason(
  type: GraphQLLeafType,
  value: unknown,
  error: unknown,
  required: boolean,
): ValidationReason {
  if (isEnumType(type)) {
    return 'INVALID_CHOICE';
  }
  if (type.name === 'String') {
    return 'MUST_BE_STRING';
  }
  if (type.name === 'Int') {
    return intReason(value);
  }
  if (required && typeof value === 'string' && value.trim() === '') {
    return 'REQUIRED';
  }
  return scalarFailureReason(error);
}

/** A value of the type that passes coercion (its content is never used, only validated). */
export function standIn(type: GraphQLInputType): unknown {
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
  const name = inner.toString();
  if (name === 'Int' || name === 'Float') {
    return 0;
  }
  if (name === 'Boolean') {
    return false;
  }
  return (isScalarType(inner) ? scalarStandIn(inner) : undefined) ?? '';
}

/**
 * Checks a value against an input type the way graphql-js coerces variables, reporting every bad
 * part with its reason, and answers the value with each bad part replaced by a stand-in.
 */
export function checkValue(
  type: GraphQLInputType,
  value: unknown,
  path: Path,
  report: Report,
  required = false,
): unknown {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) {
      report(path, 'REQUIRED');
      return standIn(type);
    }
    return checkValue(type.ofType, value, path, report, true);
  }
  if (value === null || value === undefined) {
    return value;
  }
  if (isListType(type)) {
    // A single value stands for a list of one, at the list's own path.
    return Array.isArray(value)
      ? value.map((item, index) => checkValue(type.ofType, item, [...path, index], report))
      : [checkValue(type.ofType, value, path, report)];
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object') {
      report(path, 'INVALID_FORMAT');
      return standIn(type);
    }
    const given = value as Record<string, unknown>;
    const fields = type.getFields();
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(fields)) {
      if (given[name] === undefined) {
        if (field.defaultValue === undefined && isNonNullType(field.type)) {
          report([...path, name], 'REQUIRED');
          out[name] = standIn(field.type);
        }
      } else {
        out[name] = checkValue(field.type, given[name], [...path, name], report);
      }
    }
    // Keys the type does not have (or an array's indexes) are refused, as graphql-js does.
    if (Object.keys(given).some((key) => !(key in fields))) {
      report(path, 'INVALID_FORMAT');
    }
    return Array.isArray(value) ? standIn(type) : out;
  }
  let parsed: unknown;
  let failure: unknown;
  try {
    parsed = type.parseValue(value);
  } catch (error) {
    failure = error;
  }
  if (failure !== undefined || parsed === undefined) {
    report(path, leafReason(type, value, failure, required));
    return standIn(type);
  }
  return value;
}
