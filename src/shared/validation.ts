import {
  isEmail,
  type ValidationArguments,
  ValidateBy,
  type ValidationError,
  validate,
} from 'class-validator';
import type { ValidatorFn } from 'type-graphql';
import { type FieldErrors, ValidationFailedError, type ValidationReason } from './errors';

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
  ['isFuture', 'MUST_BE_FUTURE'],
  ['arrayUnique', 'INVALID_CHOICE'],
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

/** type-graphql's hook: validates argument objects and throws the contract's field errors. */
export const validateArgs: ValidatorFn = async (argValue) => {
  if (argValue === null || typeof argValue !== 'object') {
    return;
  }
  const targets: object[] = Array.isArray(argValue) ? argValue : [argValue];
  const errors = (
    await Promise.all(
      targets.map((target) =>
        validate(target, { forbidUnknownValues: false, validationError: { target: false } }),
      ),
    )
  ).flat();
  if (errors.length > 0) {
    throw new ValidationFailedError(toFieldErrors(errors));
  }
};

const trimmedLength = (value: unknown): number =>
  typeof value === 'string' ? value.trim().length : 0;

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
    validator: { validate: (value) => typeof value === 'string' && value.trim().length <= max },
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

/** A date-time that lies in the future when the request is validated. */
export const IsFuture = (): PropertyDecorator =>
  ValidateBy({
    name: 'isFuture',
    validator: {
      validate: (value) => typeof value === 'string' && Date.parse(value) > Date.now(),
    },
  });

/** A valid e-mail address once surrounding white space is removed. */
export const IsTrimmedEmail = (): PropertyDecorator =>
  ValidateBy({
    name: 'isEmail',
    validator: { validate: (value) => typeof value === 'string' && isEmail(value.trim()) },
  });
