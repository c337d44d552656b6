import {
  getMetadataStorage,
  isEmail,
  type ValidationArguments,
  ValidateBy,
  type ValidationError,
  validate,
} from 'class-validator';
import { GraphQLEmailAddress } from 'graphql-scalars';
import type { ValidatorFn } from 'type-graphql';
import { type FieldErrors, ValidationFailedError, type ValidationReason } from './errors';
import { canonicalTimeZone } from './time-zone';

/** class-validator constraint names → the contract's reasons, most fundamental first. */
const reasonByConstraint: ReadonlyArray<[string, ValidationReason]> = [
  ['isDefined', 'REQUIRED'],
  ['isNotEmpty', 'REQUIRED'],
  ['notBlank', 'REQUIRED'],
  ['isString', 'MUST_BE_STRING'],
  ['isInt', 'MUST_BE_INTEGER'],
  ['trimmedMinLength', 'TOO_SHORT'],
  ['minLength', 'TOO_SHORT'],
  ['arrayMinSize', 'TOO_SHORT'],
  ['trimmedMaxLength', 'TOO_LONG'],
  ['maxLength', 'TOO_LONG'],
  ['arrayMaxSize', 'TOO_LONG'],
  ['isEmail', 'INVALID_EMAIL'],
  ['isUuid', 'INVALID_UUID'],
  ['isIso8601', 'INVALID_DATE'],
  ['isEnum', 'INVALID_CHOICE'],
  ['isIn', 'INVALID_CHOICE'],
  ['isNotIn', 'INVALID_CHOICE'],
  ['matches', 'INVALID_FORMAT'],
  ['isUrl', 'INVALID_FORMAT'],
  ['min', 'TOO_SMALL'],
  ['max', 'TOO_LARGE'],
  ['equalsProperty', 'MISMATCH'],
  ['laterThan', 'TOO_SMALL'],
  ['isFuture', 'MUST_BE_FUTURE'],
  ['arrayUnique', 'INVALID_CHOICE'],
  ['isTimeZone', 'INVALID_TIME_ZONE'],
  ['isRecurrence', 'INVALID_RECURRENCE'],
];

function reasonOf(constraints: Record<string, string>): ValidationReason {
  for (const [name, reason] of reasonByConstraint) {
    if (name in constraints) {
      return reason;
    }
  }
  return 'INVALID_FORMAT';
}

/** Flattens class-validator's error tree into `path → reason` (paths like `meeting.title`). */
export function toFieldErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints && Object.keys(error.constraints).length > 0) {
      fields[path] = reasonOf(error.constraints);
    }
    if (error.children?.length) {
      Object.assign(fields, toFieldErrors(error.children, path));
    }
  }
  return fields;
}

/**
 * type-graphql's hook: validates argument objects and throws the contract's field errors. It is
 * called for every argument of every resolver; scalars (checked by their types) return at once.
 */
export const validateArgs: ValidatorFn = (argValue) => {
  if (argValue === null || typeof argValue !== 'object') {
    return undefined;
  }
  return fieldErrorsOf(argValue).then((fields) => {
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
  });
};

const hasRulesByClass = new WeakMap<object, boolean>();

/** Whether class-validator has rules for an object's class (its own or inherited), once per class. */
function hasRules(target: object): boolean {
  const type = target.constructor;
  let known = hasRulesByClass.get(type);
  if (known === undefined) {
    known = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0;
    hasRulesByClass.set(type, known);
  }
  return known;
}

/**
 * The rule failures of an argument value (an instance of its input or args class, or a list of
 * them): text no column can store, else every class-validator rule that fails. Empty when valid.
 */
export async function fieldErrorsOf(argValue: unknown): Promise<FieldErrors> {
  if (argValue === null || typeof argValue !== 'object') {
    return {};
  }
  const withNul = pathsWithNul(argValue);
  if (withNul.length > 0) {
    return Object.fromEntries(withNul.map((path) => [path, 'INVALID_FORMAT']));
  }
  // An args class with no rules (ids, typed by their scalars) is not walked by class-validator.
  const targets = (Array.isArray(argValue) ? (argValue as unknown[]) : [argValue]).filter(
    (target): target is object => target !== null && typeof target === 'object' && hasRules(target),
  );
  const errors = (
    await Promise.all(
      targets.map((target) =>
        validate(target, { forbidUnknownValues: false, validationError: { target: false } }),
      ),
    )
  ).flat();
  return toFieldErrors(errors);
}

/** Length in characters (code points), as PostgreSQL counts them, after trimming. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Paths of string values no text column can store: a NUL character, or UTF-16 that is not
 * well-formed (a lone surrogate has no UTF-8 encoding).
 */
function pathsWithNul(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') {
    return value.includes('\u0000') || LONE_SURROGATE.test(value) ? [prefix] : [];
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      pathsWithNul(item, prefix ? `${prefix}.${key}` : key),
    );
  }
  return [];
}

const trimmedLength = (value: unknown): number =>
  typeof value === 'string' ? [...value.trim()].length : 0;

/** At least `min` characters once surrounding white space is removed. */
export const TrimmedMinLength = (min: number): PropertyDecorator =>
  ValidateBy({
    name: 'trimmedMinLength',
    constraints: [min],
    validator: { validate: (value) => trimmedLength(value) >= min },
  });

/** At most `max` characters once surrounding white space is removed. */
export const TrimmedMaxLength = (max: number): PropertyDecorator =>
  ValidateBy({
    name: 'trimmedMaxLength',
    constraints: [max],
    validator: { validate: (value) => typeof value === 'string' && trimmedLength(value) <= max },
  });

/** Not empty once surrounding white space is removed. */
export const NotBlank = (): PropertyDecorator =>
  ValidateBy({
    name: 'notBlank',
    validator: { validate: (value) => typeof value === 'string' && value.trim().length > 0 },
  });

/** Equal to another property of the same object (password confirmation). */
export const EqualsProperty = (property: string): PropertyDecorator =>
  ValidateBy({
    name: 'equalsProperty',
    constraints: [property],
    validator: {
      validate: (value, args?: ValidationArguments) =>
        value === (args?.object as Record<string, unknown> | undefined)?.[property],
    },
  });

/**
 * Later than another property of the same object: instants, or `HH:MM` times of day (as text,
 * later sorts later). Passes when either is missing: their own rules say whether they may be.
 */
export const LaterThan = (property: string): PropertyDecorator =>
  ValidateBy({
    name: 'laterThan',
    constraints: [property],
    validator: {
      validate: (value, args?: ValidationArguments) => {
        const other = (args?.object as Record<string, unknown> | undefined)?.[property];
        if (value instanceof Date && other instanceof Date) {
          return value.getTime() > other.getTime();
        }
        if (typeof value === 'string' && typeof other === 'string') {
          return value > other;
        }
        return true;
      },
    },
  });

/** A date-time that names an instant (not an ISO 8601 form Date cannot read, as a week date). */
export const IsInstant = (): PropertyDecorator =>
  ValidateBy({
    name: 'isIso8601',
    validator: { validate: (value) => value instanceof Date && !Number.isNaN(value.getTime()) },
  });

/** An IANA time zone the zone database knows (`Europe/Berlin`, `UTC`). */
export const IsTimeZone = (): PropertyDecorator =>
  ValidateBy({
    name: 'isTimeZone',
    validator: {
      validate: (value) =>
        value === null ||
        value === undefined ||
        (typeof value === 'string' && canonicalTimeZone(value) !== null),
    },
  });

/** A date-time that lies in the future when the request is validated. */
export const IsFuture = (): PropertyDecorator =>
  ValidateBy({
    name: 'isFuture',
    validator: {
      validate: (value) => value instanceof Date && value.getTime() > Date.now(),
    },
  });

function isOutputEmail(value: string): boolean {
  try {
    GraphQLEmailAddress.parseValue(value);
    return true;
  } catch {
    return false;
  }
}

/** A valid e-mail address once surrounding white space is removed. */
export const IsTrimmedEmail = (): PropertyDecorator =>
  ValidateBy({
    name: 'isEmail',
    // The length limit (255) is TrimmedMaxLength's; validator.js alone would stop at 254. The
    // address must also be one the EmailAddress output scalar accepts (no UTF-8 or quoted parts).
    validator: {
      validate: (value) =>
        typeof value === 'string' &&
        isEmail(value.trim(), { ignore_max_length: true, allow_utf8_local_part: false }) &&
        isOutputEmail(value.trim()),
    },
  });

/** Not one of the given names, compared trimmed and case-insensitively. */
export const NotOneOf = (names: readonly string[]): PropertyDecorator =>
  ValidateBy({
    name: 'isNotIn',
    constraints: [names],
    validator: {
      validate: (value) => typeof value !== 'string' || !names.includes(value.trim().toLowerCase()),
    },
  });
