import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import type { CallerLookup } from '../auth/tokens';
import type { ListBound } from '../graphql/list-size';
import type { LoggedChange } from '../live/change-log';
import type { AnySettings } from '../settings/settings';

/** A class the ORM maps or type-graphql reads (entities, resolvers). */
export type ClassOf = abstract new (...args: never[]) => unknown;

/** A store: data access built over one entity manager. */
export type StoreClass = new (em: EntityManager) => object;

/** A module's own HTTP route: `handler` mounted at `path` (before the REST routes). */
export interface ModuleRoute {
  readonly path: string;
  readonly handler: RequestHandler;
}

/** Work a module runs beside requests (a job queue, a listener), stopped when the app closes. */
export interface ModuleWorker {
  close(): Promise<void>;
}

/**
 * Everything the app needs from one module, declared in the module's own `index.ts` (its face):
 * the app and the platform assemble these generically, and know no module by name.
 *
 * Functions take `never` here so that each module types them with its own small interfaces (the
 * stores, loaders and services it uses); the app's context holds every module's, which fits each.
 */
export interface ModuleDescriptor {
  readonly name: string;
  /** The entities MikroORM maps (the migrations make their tables). */
  readonly entities?: readonly ClassOf[];
  /** Tables the module owns without an entity (checked against the migrations). */
  readonly tables?: readonly string[];
  /** The resolvers and connection resolvers it adds to the one schema. */
  readonly resolvers?: readonly ClassOf[];
  /** Its data access, by the name services reach it under (`stores.<name>`). */
  readonly stores?: Readonly<Record<string, StoreClass>>;
  /**
   * Its per-request batch loaders, built over the request's stores and the loaders of the
   * modules listed before it (so batching state is fresh per request, structurally).
   */
  readonly loaders?: (stores: never, below: never) => object;
  /** Its services of one request, each built on first use (see ServiceParts). */
  readonly services?: Readonly<Record<string, (parts: never) => object>>;
  /**
   * A committed change as the subscriptions hear it: what its generic references mean (one module
   * declares it, the one that declares `topicsOf`).
   */
  readonly noticeOf?: (change: LoggedChange) => object;
  /** The local topics a committed change is delivered on to this instance's subscribers. */
  readonly topicsOf?: (notice: never) => readonly string[];
  /** Who a valid access token names (one module, the users', declares it). */
  readonly caller?: (stores: never) => CallerLookup<unknown>;
  /**
   * What its services need for the life of the process (a bound, a pool of turns), built once at
   * start from the app's set-up (the configuration); merged into the app's dependencies.
   */
  readonly deps?: (setup: never) => object;
  /** Its own HTTP routes (beside GraphQL and REST), given the app's runtime. */
  readonly routes?: (runtime: never) => readonly ModuleRoute[];
  /**
   * Bounds on its lists that no argument sizes, for the node limit (node-limit.ts), from the
   * configuration (null: the defaults, for a schema built without one).
   */
  readonly listBounds?: (config: never) => readonly ListBound[];
  /** What it runs beside requests, started with the app and closed before the database. */
  readonly worker?: (runtime: never) => Promise<ModuleWorker>;
  /**
   * The environment variables it reads (its `<module>.settings.ts`, a leaf file), assembled with
   * the platform's into the one configuration, whose slice they give reaches its `deps`,
   * `routes`, `listBounds` and `worker` as `config`.
   */
  readonly settings?: AnySettings;
}

/** Declares a module, keeping its exact type (the app derives its context's types from it). */
export const defineModule = <const D extends ModuleDescriptor>(descriptor: D): D => descriptor;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (
  x: infer I,
) => void
  ? I
  : never;

type Each<M extends readonly ModuleDescriptor[]> = M[number];

/** The stores of every module in `M`, by name. */
export type StoresOf<M extends readonly ModuleDescriptor[]> = UnionToIntersection<
  Each<M> extends infer D
    ? D extends { stores: infer S }
      ? { [K in keyof S]: S[K] extends new (em: EntityManager) => infer I ? I : never }
      : never
    : never
>;

/** The loaders of every module in `M`. */
export type LoadersOf<M extends readonly ModuleDescriptor[]> = UnionToIntersection<
  Each<M> extends infer D
    ? D extends { loaders: (...args: never[]) => infer L }
      ? L
      : never
    : never
>;

/** The services of every module in `M`, by name. */
export type ServicesOf<M extends readonly ModuleDescriptor[]> = UnionToIntersection<
  Each<M> extends infer D
    ? D extends { services: infer S }
      ? { [K in keyof S]: S[K] extends (...args: never[]) => infer R ? R : never }
      : never
    : never
>;

/** The caller of a request (what the module declaring `caller` finds). */
export type CallerOf<M extends readonly ModuleDescriptor[]> =
  Each<M> extends infer D
    ? D extends { caller: (stores: never) => CallerLookup<infer U> }
      ? U
      : never
    : never;

/** The notices of committed changes the modules' subscriptions hear. */
export type NoticeOf<M extends readonly ModuleDescriptor[]> =
  Each<M> extends infer D
    ? D extends { topicsOf: (notice: infer N) => unknown }
      ? N
      : never
    : never;

/** The process dependencies every module in `M` adds. */
export type DepsOf<M extends readonly ModuleDescriptor[]> = UnionToIntersection<
  Each<M> extends infer D ? (D extends { deps: (setup: never) => infer R } ? R : never) : never
>;

/** The settings of every module in `M` that has some (a union). */
export type SettingsOf<M extends readonly ModuleDescriptor[]> =
  Each<M> extends infer D
    ? D extends { settings: infer S extends AnySettings }
      ? S
      : never
    : never;

/** What the functions `K` of every module in `M` ask of their argument, all together. */
export type WantsOf<M extends readonly ModuleDescriptor[], K extends keyof ModuleDescriptor> =
  // Boxed, so that an argument that is itself a union (`T | null`) is not split apart.
  Unboxed<
    UnionToIntersection<
      Each<M> extends infer D
        ? D extends { [k in K]: (argument: infer A) => unknown }
          ? { wants: A }
          : never
        : never
    >
  >;

type Unboxed<B> = B extends { wants: infer A } ? A : never;
