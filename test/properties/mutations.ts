import fc from 'fast-check';
import { fuzzJsonValue } from './fuzz-values';

/** Characters that survive validation but may not survive a driver, a parser or a LIKE pattern. */
export const INJECTED = fc.constantFrom(
  '\u0000',
  '\u0000\u0000',
  ';',
  '; select 1',
  '\ud800',
  '\ud800ö',
  'ö\udcf6',
  '\udcf6\udcf6',
  'ö',
  '\u2028',
  '\u001b',
  "'",
  '\\',
  '%',
  '_',
  '"',
  '$$',
  '😀',
);

/** Every key path of a value, to depth 3 (list items by index). */
function pathsOf(
  value: unknown,
  prefix: Array<string | number> = [],
  depth = 0,
): Array<Array<string | number>> {
  if (depth >= 3 || typeof value !== 'object' || value === null) {
    return [];
  }
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((item, index): [number, unknown] => [index, item])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [
    [...prefix, key],
    ...pathsOf(child, [...prefix, key], depth + 1),
  ]);
}

/** One change to a sensible value: a field replaced, removed, or an unknown one added. */
export interface Mutation {
  /** `inject` puts `text` inside a string field, keeping the rest of it (and its validity). */
  kind: 'set' | 'delete' | 'unknown-field' | 'inject' | 'null';
  pick: number;
  text: string;
  value: unknown;
  key: string;
}

/** Applies the changes to a copy of the value. */
export function mutate(value: unknown, mutations: Mutation[]): unknown {
  let out = structuredClone(value);
  for (const mutation of mutations) {
    const paths = pathsOf(out);
    if (paths.length === 0) {
      out = structuredClone(mutation.value);
      continue;
    }
    const path = paths[mutation.pick % paths.length]!;
    let parent = out as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) {
      parent = parent[step] as Record<string | number, unknown>;
    }
    const last = path[path.length - 1]!;
    if (mutation.kind === 'delete') {
      if (Array.isArray(parent)) {
        parent.splice(Number(last), 1);
      } else {
        delete parent[last];
      }
    } else if (mutation.kind === 'null') {
      parent[last] = null;
    } else if (mutation.kind === 'inject') {
      const current = parent[last];
      if (typeof current === 'string') {
        const at = mutation.pick % (current.length + 1);
        parent[last] = `${current.slice(0, at)}${mutation.text}${current.slice(at)}`;
      }
    } else if (mutation.kind === 'unknown-field' && !Array.isArray(parent)) {
      // An own property even for `__proto__`, as JSON.parse would make it.
      Object.defineProperty(parent, mutation.key, {
        value: structuredClone(mutation.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      // A copy: the generated value may be a shared constant, and later changes must not loop.
      parent[last] = structuredClone(mutation.value);
    }
  }
  return out;
}

/** A change with a fuzzed value for any field, or a field the operation does not know. */
export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<Mutation['kind']>(
    'set',
    'set',
    'set',
    'delete',
    'unknown-field',
    'inject',
    'inject',
    'null',
  ),
  pick: fc.nat(),
  text: INJECTED,
  value: fuzzJsonValue,
  key: fc.constantFrom(
    'roles',
    'is_superuser',
    'id',
    'owner_id',
    'status',
    'extra',
    '__proto__',
    'constructor',
    '',
  ),
});
