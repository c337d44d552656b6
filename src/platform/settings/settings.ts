import { z } from 'zod';

// How an area of the service declares the environment variables it reads: a leaf file (zod only),
// since the configuration is read before tracing starts, when nothing else may load yet.

declare module 'zod' {
  interface GlobalMeta {
    /**
     * The default as the configuration reference states it, for a variable whose schema holds
     * none (the default is computed, or is a secret): markdown, e.g. `derived from the JWT key`.
     */
    defaultText?: string;
  }
}

/** The variables of one group, by name: each a schema of its text, described (`.meta()`). */
export type SettingsShape = z.ZodRawShape;

/** What the variables of `S` give, parsed. */
export type ParsedOf<S extends SettingsShape> = z.output<z.ZodObject<S>>;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (
  x: infer I,
) => void
  ? I
  : never;

/**
 * A group of variables one area of the service reads: their schemas, the checks that span several
 * of them, and the slice of the configuration they give. `E` is what its functions read: its own
 * variables, parsed, and those of the groups it `reads`.
 */
export interface SettingsGroup<S extends SettingsShape, E, C extends object> {
  /** The area, as the configuration reference heads its table. */
  readonly area: string;
  /** Where the reference sends a reader for more (markdown, relative to docs/), or null. */
  readonly about: string | null;
  readonly variables: S;
  /** Other groups whose variables this one's check and slice read (assembled with it). */
  readonly reads: readonly AnySettings[];
  /** Problems no single variable shows, each reported against one of its own variables. */
  readonly check: ((env: E, problem: (variable: string, message: string) => void) => void) | null;
  /** The slice of the configuration these variables give. */
  readonly configOf: (env: E) => C;
}

/** Any group (its functions take `never`, so that every group fits). */
export type AnySettings = SettingsGroup<SettingsShape, never, object>;

/** The parsed variables of the groups `R`, all together. */
export type ReadsOf<R extends readonly AnySettings[]> = UnionToIntersection<
  R[number] extends infer G
    ? G extends SettingsGroup<infer S, never, object>
      ? ParsedOf<S>
      : never
    : never
>;

/** The configuration the groups `G` (a union) give together: every group's slice. */
export type ConfigOf<G extends AnySettings> = UnionToIntersection<
  G extends SettingsGroup<SettingsShape, never, infer C> ? C : never
>;

/**
 * Declares a group of variables. `check` reports a problem against one of the group's own
 * variables; `configOf` turns the parsed variables (the group's, and those of `reads`) into the
 * group's slice of the configuration.
 */
export function defineSettings<
  const S extends SettingsShape,
  C extends object,
  const R extends readonly AnySettings[] = [],
>(group: {
  area: string;
  about?: string;
  variables: S;
  reads?: R;
  check?: (
    env: ParsedOf<S> & ReadsOf<R>,
    problem: (variable: keyof S & string, message: string) => void,
  ) => void;
  configOf: (env: ParsedOf<S> & ReadsOf<R>) => C;
}): SettingsGroup<S, ParsedOf<S> & ReadsOf<R>, C> {
  return {
    area: group.area,
    about: group.about ?? null,
    variables: group.variables,
    reads: group.reads ?? [],
    check: group.check ?? null,
    configOf: group.configOf,
  };
}

/** A configuration that does not validate: every bad variable, as `NAME: message`. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Groups assembled into one configuration. */
export interface Settings<G extends AnySettings> {
  readonly groups: readonly G[];
  /** Every variable, in the groups' order. */
  readonly variables: readonly string[];
  /** Parses and validates `source` once; throws ConfigError naming every bad variable. */
  read(source: Readonly<Record<string, string | undefined>>): ConfigOf<G>;
}

/**
 * Assembles groups into one schema: every variable (each declared by one group only), then every
 * group's check, in the groups' order, so that problems are listed in that order.
 */
export function assembleSettings<const G extends AnySettings>(groups: readonly G[]): Settings<G> {
  const shape: Record<string, SettingsShape[string]> = {};
  for (const group of groups) {
    for (const read of group.reads) {
      if (!groups.includes(read as G)) {
        throw new Error(`the settings of ${group.area} read ${read.area}'s, not assembled`);
      }
    }
    for (const [name, schema] of Object.entries(group.variables)) {
      if (name in shape) {
        throw new Error(`${name} is declared twice (${group.area})`);
      }
      shape[name] = schema;
    }
  }
  // A group's functions are given what the whole schema gives: its own variables and those it
  // reads are among them (checked above).
  type Parsed = Record<string, unknown>;
  type Check = (env: Parsed, problem: (variable: string, message: string) => void) => void;
  type Slice = (env: Parsed) => object;
  const schema = z.object(shape).superRefine((env, ctx) => {
    for (const group of groups) {
      (group.check as Check | null)?.(env, (variable, message) => {
        ctx.addIssue({ code: 'custom', path: [variable], message });
      });
    }
  });
  return {
    groups,
    variables: Object.keys(shape),
    read(source) {
      const parsed = schema.safeParse(source);
      if (!parsed.success) {
        throw new ConfigError(
          parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
        );
      }
      const slices = groups.map((group) => (group.configOf as Slice)(parsed.data));
      return Object.assign({}, ...slices) as ConfigOf<G>;
    },
  };
}
