import { GraphQLError, GraphQLScalarType } from 'graphql';
import { isValidationReason, type ValidationReason } from './errors';
import {
  GraphQLDateTime as DateTimeScalar,
  GraphQLEmailAddress as EmailAddressScalar,
  GraphQLLocalDate as LocalDateScalar,
  GraphQLUUID as UUIDScalar,
} from 'graphql-scalars';

/**
 * graphql-scalars' types, unchanged in the schema and for input, with a lean `serialize`: output
 * values come from our own typed columns (uuid, date, timestamptz, checked e-mail), so checking
 * each one again with a regular expression only costs time on every field of every row.
 */
function withOutput(scalar: GraphQLScalarType, serialize: (value: unknown) => string) {
  return new GraphQLScalarType({ ...scalar.toConfig(), serialize });
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

export const GraphQLUUID = withOutput(UUIDScalar, text(UUIDScalar.name));
export const GraphQLEmailAddress = withOutput(EmailAddressScalar, text(EmailAddressScalar.name));
export const GraphQLLocalDate = withOutput(LocalDateScalar, text(LocalDateScalar.name));

/** Timestamps: read models carry them as ISO 8601 text in UTC with milliseconds already. */
export const GraphQLDateTime = withOutput(DateTimeScalar, text(DateTimeScalar.name));

/**
 * Why a scalar refused an input value: a scalar of ours may say so as a typed error
 * (`extensions.reason`, one of the contract's reasons); any other refusal is a bad format.
 */
export function scalarFailureReason(error: unknown): ValidationReason {
  const reason = error instanceof GraphQLError ? error.extensions['reason'] : undefined;
  return isValidationReason(reason) ? reason : 'INVALID_FORMAT';
}
