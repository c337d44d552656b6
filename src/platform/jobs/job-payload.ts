/** The JSON types a job's payload field may have. */
type FieldKind = 'string' | 'number' | 'boolean';

type Typed<K extends FieldKind> = K extends 'string'
  ? string
  : K extends 'number'
    ? number
    : boolean;

/** The payload a job's fields describe. */
export type PayloadOf<F extends Record<string, FieldKind>> = { [P in keyof F]: Typed<F[P]> };

/**
 * A job's payload, checked against its fields' types (a job queued by an older or newer
 * version may carry another shape): those fields only, or null when one is missing or mistyped.
 */
export function payloadOf<F extends Record<string, FieldKind>>(
  payload: unknown,
  fields: F,
): PayloadOf<F> | null {
  if (typeof payload !== 'object' || payload === null) {
    return null;
  }
  const given = payload as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(fields)) {
    if (typeof given[name] !== kind) {
      return null;
    }
    checked[name] = given[name];
  }
  return checked as PayloadOf<F>;
}
