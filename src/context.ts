import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { AttemptLimiter, CountAttempt } from './platform/auth/attempt-limiter';
import type { PasswordHasher } from './platform/auth/password';
import {
  authenticate,
  type AuthState,
  type RequestInfo,
  type TokenService,
} from './platform/auth/tokens';
import {
  loadersOf,
  noticeOf,
  servicesOf,
  storesOf,
  topicsOf,
} from './platform/composition/assemble';
import type { LiveContext, StoreSet } from './platform/composition/context';
import {
  type CallerOf,
  defineModule,
  type ClassOf,
  type DepsOf,
  type LoadersOf,
  type NoticeOf,
  type ServicesOf,
  type StoresOf,
} from './platform/composition/module';
import { buildServiceSchema } from './platform/graphql/build-schema';
import type { ListBound } from './platform/graphql/list-size';
import { ChangeLogStore } from './platform/live/change-log';
import { currentRequest } from './platform/observability/request-tracking';
import { BaseEntity } from './platform/shared/base.entity';
import type { SecretBox } from './platform/auth/secret-box';
import type { Config } from './app-config';
import { modules } from './modules';
import { HEARTBEATS_TABLE } from './platform/sql/heartbeats';
import { READ_POSITIONS_TABLE } from './platform/postgres/replicas/write-positions';

// The operation context, assembled from the modules' descriptors (src/modules/index.ts): the same
// for both faces (GraphQL and REST), and for work done outside a request.

/** What the platform brings beside the modules: the base entity, and the change log's store. */
const platformPart = defineModule({
  name: 'platform',
  entities: [BaseEntity],
  // The change log (src/platform/live/change-log.ts), the idempotency keys
  // (src/platform/idempotency/idempotency-keys.ts), who is alive (src/platform/sql/heartbeats.ts), the
  // callers' last write positions (src/platform/postgres/replicas/write-positions.ts).
  tables: [
    'change_log',
    'change_log_horizon',
    'idempotency_keys',
    HEARTBEATS_TABLE,
    READ_POSITIONS_TABLE,
  ],
  /** The change log: what subscribers on every instance hear of (written with the change). */
  stores: { events: ChangeLogStore },
});

/** The platform's part and every module's. */
export const parts = [platformPart, ...modules] as const;

/** The data access of every module over one entity manager (a request's, or a transaction's). */
export type Stores = StoreSet<StoresOf<typeof parts>>;
/** Per-request batch loaders, created with the request's context so batching never leaks. */
export type Loaders = LoadersOf<typeof parts>;
/** The services of one request. */
export type Services = ServicesOf<typeof parts>;
/** The notices of committed changes subscribers hear. */
export type Notice = NoticeOf<typeof parts>;
/** Who a request's token names. */
export type Caller = CallerOf<typeof parts>;
/** Everything one GraphQL operation (from /graphql or the REST facade) works with. */
export type Context = LiveContext<Services, Loaders, Caller, Notice>;

/** What lives as long as the process of the platform's: the ORM and the key material. */
export interface PlatformDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
  attempts: AttemptLimiter;
  /** The box secrets kept in the database are sealed in (webhook secrets, idempotent answers). */
  secrets: SecretBox;
}

/** What lives as long as the process: the platform's, and what each module adds (`deps`). */
export type AppDependencies = PlatformDependencies & DepsOf<typeof parts>;

/** What the modules build their process dependencies from. */
export interface AppSetup {
  config: Config;
  secrets: SecretBox;
}

/** The process dependencies every module adds, built from `setup`. */
export function moduleDependencies(setup: AppSetup): DepsOf<typeof parts> {
  const deps = {};
  for (const part of parts) {
    if ('deps' in part) {
      Object.assign(deps, (part.deps as (setup: AppSetup) => object)(setup));
    }
  }
  return deps as DepsOf<typeof parts>;
}

export const createStores = storesOf<Stores>(parts);
export const createLoaders = loadersOf<Stores, Loaders>(parts);
const createServices = servicesOf<AppDependencies, Stores, Loaders, Services>(parts);
const callerLookups = parts.flatMap((part) => ('caller' in part ? [part.caller] : []));
const [callerOf] = callerLookups;
if (!callerOf || callerLookups.length > 1) {
  throw new Error('exactly one module declares who a token names (`caller`)');
}

/** What every instance hears of committed changes, and on which local topics (live events). */
export const liveEvents = { noticeOf: noticeOf<Notice>(parts), topicsOf: topicsOf<Notice>(parts) };

/** The one schema both faces execute against. */
export function createSchema(config: Config | null = null): Promise<GraphQLSchema> {
  const listBounds = parts.flatMap((part) =>
    'listBounds' in part ? (part.listBounds as (config: Config | null) => ListBound[])(config) : [],
  );
  return buildServiceSchema(
    parts.flatMap((part): readonly ClassOf[] => ('resolvers' in part ? part.resolvers : [])),
    listBounds,
  );
}

/** The services of a request from `ip` (sign-in attempts are counted against it). */
function servicesFor(deps: AppDependencies, ip: string, stores: Stores, loaders: Loaders) {
  const limit: CountAttempt = (attempt) => deps.attempts.consume({ ...attempt, ip });
  return createServices(deps, limit, stores, loaders);
}

/** Builds a fresh context: a forked entity manager, new loaders, the caller from the token. */
export async function createContext(
  deps: AppDependencies,
  request: RequestInfo,
  live: Context['live'] = null,
): Promise<Context> {
  const em = deps.orm.em.fork();
  const stores = createStores(em);
  const loaders = createLoaders(stores);
  const auth = await authenticate(request.authorization, callerOf(stores), deps.tokens);
  if (auth.user) {
    const scope = currentRequest();
    if (scope) {
      scope.userId = auth.user.id;
    }
    // The caller is often also a participant or follower being shown: no second read.
    loaders.primeUsers([auth.user]);
  }
  return { em, auth, loaders, services: servicesFor(deps, request.ip, stores, loaders), live };
}

/**
 * The caller of an `Authorization` value, read afresh (a live connection's, when it opens and
 * whenever sessions may have ended).
 */
export function authenticateCaller(
  deps: AppDependencies,
  authorization: string | undefined,
): Promise<AuthState<Caller>> {
  return authenticate(authorization, callerOf(createStores(deps.orm.em.fork())), deps.tokens);
}

/**
 * A context acting as `user` outside any request (webhook deliveries read meetings as their
 * endpoint's owner, under the rules a request of theirs would meet), over `over`: an entity
 * manager, or another such context, whose entity manager, loaders and services it then shares,
 * so work done for many users reads each record once (services take the viewer as an argument,
 * and loaders hold no viewer's view).
 */
export function contextOf(
  deps: AppDependencies,
  user: Caller,
  over: EntityManager | Context,
): Context {
  const auth: AuthState<Caller> = { user, failure: null };
  if ('auth' in over) {
    return { ...over, auth };
  }
  const em = over;
  const stores = createStores(em);
  const loaders = createLoaders(stores);
  loaders.primeUsers([user]);
  return {
    em,
    auth,
    loaders,
    services: servicesFor(deps, 'background', stores, loaders),
    live: null,
  };
}
