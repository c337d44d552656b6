import {
  type GraphQLInputType,
  type GraphQLLeafType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import type { ValidationReason } from '../shared/errors';
import { scalarFailureReason, scalarStandIn } from '../shared/scalars';

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
