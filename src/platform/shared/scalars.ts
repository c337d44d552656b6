import { isISO8601, isUUID } from 'class-validator';
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
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
