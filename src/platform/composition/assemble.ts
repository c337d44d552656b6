import type { EntityManager } from '@mikro-orm/postgresql';
import type { CountAttempt } from '../auth/attempt-limiter';
import type { LoggedChange } from '../live/change-log';
import { inOrmTransaction, inSqlTransaction } from '../sql/sql-transaction';
import type { ModuleDescriptor, StoreClass } from './module';

/**
 * Defines `build`'s getters on `target`: each builds its value on first use and keeps it, so a
 * request that reads one or two stores or services never allocates the others (getters on the
 * prototype, no closure per request).
 */
function lazyGetters<T extends { built: Record<string, unknown> }>(
  target: T,
  build: Record<string, (self: T) => unknown>,
): void {
  for (const [name, make] of Object.entries(build)) {
    Object.defineProperty(target, name, {
      get(this: T) {
        return (this.built[name] ??= make(this));
      },
    });
  }
}

/** `part` of every module, merged by name; a name two modules declare is refused at start. */
function merged<T>(modules: readonly ModuleDescriptor[], part: (module: ModuleDescriptor) => T) {
  const all: Record<string, T[keyof T]> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(part(module) ?? {})) {
      if (name in all) {
        throw new Error(`module ${module.name} declares "${name}", which another module declared`);
      }
      all[name] = value as T[keyof T];
    }
  }
  return all;
}

/** Builds the stores of every module over one entity manager (each built on first use). */
export function storesOf<S>(modules: readonly ModuleDescriptor[]): (em: EntityManager) => S {
  const stores = merged<Record<string, StoreClass>>(modules, (module) => module.stores ?? {});

  class StoresOver {
    readonly built: Record<string, unknown> = {};

    constructor(readonly em: EntityManager) {}

    transaction<T>(work: (stores: S) => Promise<T>): Promise<T> {
      return inSqlTransaction(this.em, (tx) => work(create(tx)));
    }

    ormTransaction<T>(work: (stores: S) => Promise<T>): Promise<T> {
      return inOrmTransaction(this.em, (tx) => work(create(tx)));
    }
  }
  lazyGetters(
    StoresOver.prototype,
    Object.fromEntries(
      Object.entries(stores).map(([name, Store]) => [
        name,
        (self: StoresOver) => new Store(self.em),
      ]),
    ),
  );
  // Kept escape: the getters defined above, at run time from the modules' lists, give the
  // instance the stores' names (StoreSet<S>); no class type can be written from a runtime list.
  const create = (em: EntityManager): S => new StoresOver(em) as unknown as S;
  return create;
}

/** Builds a request's loaders: each module's, over the loaders of the modules listed before it. */
export function loadersOf<S, L>(modules: readonly ModuleDescriptor[]): (stores: S) => L {
  const makers = modules.flatMap((module) =>
    module.loaders ? [module.loaders as (stores: S, below: object) => object] : [],
  );
  return (stores) => {
    const loaders = {};
    for (const make of makers) {
      Object.assign(loaders, make(stores, loaders));
    }
    return loaders as L;
  };
}

/** Builds a request's services (each on first use), from its stores and loaders. */
export function servicesOf<D, S, L, V>(
  modules: readonly ModuleDescriptor[],
): (deps: D, limit: CountAttempt, stores: S, loaders: L) => V {
  const factories = merged(modules, (module) => module.services ?? {});

  class RequestServices {
    readonly built: Record<string, unknown> = {};

    constructor(
      readonly deps: D,
      readonly limit: CountAttempt,
      readonly stores: S,
      readonly loaders: L,
    ) {}

    /** The services a service builds on: this same set. */
    get services(): this {
      return this;
    }
  }
  lazyGetters(
    RequestServices.prototype,
    Object.fromEntries(
      Object.entries(factories).map(([name, make]) => [
        name,
        make as (parts: RequestServices) => object,
      ]),
    ),
  );
  // Kept escape: the getters defined above, at run time from the modules' lists, give the
  // instance the services' names (V); no class type can be written from a runtime list.
  return (deps, limit, stores, loaders) =>
    new RequestServices(deps, limit, stores, loaders) as unknown as V;
}

/** A change as the subscriptions hear it: as the one module that declares it reads it. */
export function noticeOf<N>(modules: readonly ModuleDescriptor[]): (change: LoggedChange) => N {
  const each = modules.flatMap((module) => (module.noticeOf ? [module.noticeOf] : []));
  const [only] = each;
  if (each.length !== 1 || !only) {
    throw new Error('exactly one module declares how a change reads as a notice (`noticeOf`)');
  }
  // That module's notices are the ones its `topicsOf` takes (NoticeOf).
  return only as (change: LoggedChange) => N;
}

/** The local topics of a change: what each module declares for it. */
export function topicsOf<N>(
  modules: readonly ModuleDescriptor[],
): (notice: N) => readonly string[] {
  const each = modules.flatMap((module) =>
    module.topicsOf ? [module.topicsOf as (notice: N) => readonly string[]] : [],
  );
  const [only] = each;
  if (each.length === 1 && only) {
    return only;
  }
  return (notice) => each.flatMap((topics) => topics(notice));
}
