import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import {
  authenticate,
  type AuthState,
  type RequestInfo,
  type TokenService,
} from '../platform/auth/tokens';
import type { AttemptLimiter, CountAttempt } from '../platform/auth/attempt-limiter';
import { buildServiceSchema, type SchemaBounds } from '../platform/graphql/build-schema';
import { ChangeLogStore } from '../platform/live/change-log';
import { BaseEntity } from '../platform/shared/base.entity';
import { inOrmTransaction, inSqlTransaction } from '../platform/sql/sql-transaction';
// The resolvers before the other modules' files, in this order: type-graphql orders the schema's
// fields as their classes load, and schema/schema.graphql is printed in it.
import { AuthResolver } from './auth/auth.resolver';
import { FollowResolver } from './follow/follow.resolver';
import { MeetingResolver, ParticipantResolver } from './meeting/meeting.resolver';
import { MeetingLifecycleResolver } from './meeting/meeting-lifecycle.resolver';
import { OccurrenceResolver } from './meeting/occurrence.resolver';
import { NodeResolver } from './node/node.resolver';
import {
  AddParticipantConflictsResolver,
  AvailabilityResolver,
  CreateMeetingConflictsResolver,
  MeetingConflictsResolver,
  RescheduleMeetingConflictsResolver,
} from './availability/availability.resolver';
import { AvailabilityService } from './availability/availability.service';
import { AvailabilityStore } from './availability/availability.store';
import { UserResolver } from './user/user.resolver';
import { MeetingEventConnection, SubscriptionResolver } from './meeting/subscription.resolver';
import { CalendarResolver } from './calendar/calendar.resolver';
import { CalendarFeed } from './calendar/calendar.entity';
import { CalendarService } from './calendar/calendar.service';
import { CalendarStore } from './calendar/calendar.store';
import { WebhookAttemptResolver, WebhookResolver } from './webhook/webhook.resolver';
import { WebhookAttempt, WebhookDelivery } from './webhook/webhook-delivery.entity';
import { WebhookDeliveryStore } from './webhook/webhook-delivery.store';
import { WebhookEndpoint } from './webhook/webhook.entity';
import { type WebhookPolicy, WebhookService } from './webhook/webhook.service';
import { WebhookEndpointStore } from './webhook/webhook.store';
import { WebhookAttemptConnection } from './webhook/webhook.types';
import { AuthService } from './auth/auth.service';
import { RefreshToken } from './auth/refresh-token.entity';
import { RefreshTokenStore } from './auth/refresh-token.store';
import { Follow } from './follow/follow.entity';
import { FollowService } from './follow/follow.service';
import { FollowStore } from './follow/follow.store';
import { FollowConnection } from './follow/follow.types';
import { type ChangeNotice, topicsOf } from './meeting/meeting-event';
import { Meeting } from './meeting/meeting.entity';
import { meetingLoaders, MeetingStore } from './meeting/meeting.store';
import { MeetingLifecycleService } from './meeting/meeting-lifecycle.service';
import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from './meeting/meeting.limits';
import { MeetingService } from './meeting/meeting.service';
import { MeetingConnection, ParticipantConnection } from './meeting/meeting.types';
import { Participant } from './meeting/participant.entity';
import { OccurrenceChange } from './meeting/occurrence.entity';
import { occurrenceLoaders, OccurrenceStore } from './meeting/occurrence.store';
import { ParticipantStore } from './meeting/participant.store';
import { NodeService } from './node/node.service';
import { NodeStore } from './node/node.store';
import { UserSearchGram } from './user/user-search-gram.entity';
import { User } from './user/user.entity';
import { userLoaders, type UserRecord, UserStore } from './user/user.store';
import { UserService } from './user/user.service';
import { UserConnection } from './user/user.types';
import type { PasswordHasher } from '../platform/auth/password';
import type { LiveScope } from '../platform/live/live-scope';
import { currentRequest } from '../platform/observability/request-tracking';
import { callerLookup } from './user/user.rules';
import type { Turns } from '../platform/shared/turns';

// The one registry of the modules: a new module adds its entities, resolvers, stores, loaders and
// services here, and nowhere else. Everything below the lists derives from them, down to the
// context each operation (GraphQL or REST) runs with.

/** Every entity MikroORM maps (the migrations make their tables). */
export const entities = [
  BaseEntity,
  User,
  UserSearchGram,
  Follow,
  Meeting,
  Participant,
  OccurrenceChange,
  RefreshToken,
  CalendarFeed,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
];

/** Every resolver of the one schema both faces (GraphQL and REST) execute against. */
const resolvers = [
  AuthResolver,
  UserResolver,
  FollowResolver,
  MeetingResolver,
  MeetingLifecycleResolver,
  OccurrenceResolver,
  AvailabilityResolver,
  MeetingConflictsResolver,
  CreateMeetingConflictsResolver,
  RescheduleMeetingConflictsResolver,
  AddParticipantConflictsResolver,
  ParticipantResolver,
  SubscriptionResolver,
  CalendarResolver,
  WebhookResolver,
  WebhookAttemptResolver,
  NodeResolver,
  ...[
    MeetingConnection,
    ParticipantConnection,
    FollowConnection,
    UserConnection,
    MeetingEventConnection,
    WebhookAttemptConnection,
  ].map((connection) => connection.resolver),
] as const;

/** What every instance hears of committed changes, and on which local topics (live events). */
export const liveEvents = { topicsOf };

/** Each module's data access, built over one entity manager. */
const STORES = {
  users: UserStore,
  meetings: MeetingStore,
  participants: ParticipantStore,
  occurrences: OccurrenceStore,
  availability: AvailabilityStore,
  follows: FollowStore,
  nodes: NodeStore,
  refreshTokens: RefreshTokenStore,
  calendar: CalendarStore,
  webhookEndpoints: WebhookEndpointStore,
  webhookDeliveries: WebhookDeliveryStore,
  /** The change log: what subscribers on every instance hear of (written with the change). */
  events: ChangeLogStore,
} satisfies Record<string, new (em: EntityManager) => object>;

/** What a request's services are built from. */
interface ServiceParts {
  readonly deps: AppDependencies;
  readonly stores: Stores;
  readonly loaders: Loaders;
  /** Sign-in attempts, counted against the request's address. */
  readonly limit: CountAttempt;
  /** The services a service builds on (written out: a service's type cannot come from itself). */
  readonly services: { readonly meetings: MeetingService };
}

/** Each module's services of one request. */
const SERVICES = {
  auth: (p: ServiceParts) => new AuthService(p.stores, p.deps.passwords, p.deps.tokens, p.limit),
  users: (p: ServiceParts) => new UserService(p.stores, p.deps.passwords, p.limit),
  follows: (p: ServiceParts) => new FollowService(p.stores, p.loaders),
  meetings: (p: ServiceParts) =>
    new MeetingService(p.stores, p.loaders, p.deps.maxParticipantsPerMeeting),
  meetingLifecycle: (p: ServiceParts) => new MeetingLifecycleService(p.stores, p.loaders),
  availability: (p: ServiceParts) => new AvailabilityService(p.stores, p.loaders),
  nodes: (p: ServiceParts) => new NodeService(p.stores, p.loaders, p.services.meetings),
  calendar: (p: ServiceParts) =>
    new CalendarService(p.stores, p.loaders, p.services.meetings, p.deps.publicUrl),
  webhooks: (p: ServiceParts) => new WebhookService(p.stores, p.deps.webhooks),
};

/** Per-request batch loaders, created with the request's context so batching never leaks. */
export function createLoaders(stores: Stores) {
  const users = userLoaders(stores);
  return { ...users, ...meetingLoaders(stores, users.primeUsers), ...occurrenceLoaders(stores) };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** The one schema both faces execute against. */
export function createSchema(
  bounds: SchemaBounds = { maxParticipantsPerMeeting: DEFAULT_MAX_PARTICIPANTS_PER_MEETING },
): Promise<GraphQLSchema> {
  return buildServiceSchema([...resolvers], bounds);
}

/** The data access of every module over one entity manager (a request's, or a transaction's). */
export type Stores = { readonly [K in keyof typeof STORES]: InstanceType<(typeof STORES)[K]> } & {
  /**
   * Runs `work` in a transaction, with stores over it; commits when it returns, rolls back when
   * it throws. Its work calls the stores' statement methods only (every write and every read
   * under a lock is one): on a server, BEGIN and COMMIT on one pooled connection, without the
   * ORM's unit of work (src/platform/sql/sql-transaction.ts).
   */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in the ORM's own transaction: for writes through the ORM's unit of work (a
   * follow, a profile edit) that log a change with them. Dearer than `transaction`.
   */
  ormTransaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
};

/** The services of one request. */
export type Services = { readonly [K in keyof typeof SERVICES]: ReturnType<(typeof SERVICES)[K]> };

/**
 * Defines `names`' getters on `target`: each builds its value on first use and keeps it, so a
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

class StoresOver {
  readonly built: Record<string, unknown> = {};

  constructor(readonly em: EntityManager) {}

  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return inSqlTransaction(this.em, (tx) => work(createStores(tx)));
  }

  ormTransaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return inOrmTransaction(this.em, (tx) => work(createStores(tx)));
  }
}
lazyGetters(
  StoresOver.prototype,
  Object.fromEntries(
    Object.entries(STORES).map(([name, Store]) => [name, (self: StoresOver) => new Store(self.em)]),
  ),
);

export function createStores(em: EntityManager): Stores {
  return new StoresOver(em) as unknown as Stores;
}

class RequestServices implements Omit<ServiceParts, 'services'> {
  readonly built: Record<string, unknown> = {};

  constructor(
    readonly deps: AppDependencies,
    private readonly request: RequestInfo,
    readonly stores: Stores,
    readonly loaders: Loaders,
  ) {}

  readonly limit: CountAttempt = (attempt) =>
    this.deps.attempts.consume({ ...attempt, ip: this.request.ip });

  get services(): Services {
    return this as unknown as Services;
  }
}
lazyGetters(RequestServices.prototype, SERVICES);

/** A request's services, each built on first use. */
export function createServices(
  deps: AppDependencies,
  request: RequestInfo,
  stores: Stores,
  loaders: Loaders,
): Services {
  return new RequestServices(deps, request, stores, loaders) as unknown as Services;
}

/** What lives as long as the process: the ORM and the key material. */
export interface AppDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
  attempts: AttemptLimiter;
  /** The most participants a meeting holds, the owner included. */
  maxParticipantsPerMeeting: number;
  /** The base of the addresses handed out (calendar feeds): PUBLIC_URL, else this host's. */
  publicUrl: string;
  /** What webhook endpoints may be, and the box their secrets are sealed in. */
  webhooks: WebhookPolicy;
  /** The process's turns to build calendar feed documents (calendar.routes.ts). */
  feedBuilds: Turns;
}

/** Everything one GraphQL operation (from /graphql or the REST facade) works with. */
export interface Context {
  em: EntityManager;
  auth: AuthState<UserRecord>;
  loaders: Loaders;
  services: Services;
  /** A subscription's events (WebSocket only); null for queries and mutations over HTTP. */
  live: LiveScope<ChangeNotice> | null;
}

/** Builds a fresh context: a forked entity manager, new loaders, the caller from the token. */
export async function createContext(
  deps: AppDependencies,
  request: RequestInfo,
  live: LiveScope<ChangeNotice> | null = null,
): Promise<Context> {
  const em = deps.orm.em.fork();
  const stores = createStores(em);
  const loaders = createLoaders(stores);
  const auth = await authenticate(request.authorization, callerLookup(stores.users), deps.tokens);
  if (auth.user) {
    const scope = currentRequest();
    if (scope) {
      scope.userId = auth.user.id;
    }
    // The caller is often also a participant or follower being shown: no second read.
    loaders.primeUsers([auth.user]);
  }
  return {
    em,
    auth,
    loaders,
    services: createServices(deps, request, stores, loaders),
    live,
  };
}

/**
 * The caller of an `Authorization` value, read afresh (a live connection's, when it opens and
 * whenever sessions may have ended).
 */
export function authenticateCaller(
  deps: AppDependencies,
  authorization: string | undefined,
): Promise<AuthState<UserRecord>> {
  const users = createStores(deps.orm.em.fork()).users;
  return authenticate(authorization, callerLookup(users), deps.tokens);
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
  user: UserRecord,
  over: EntityManager | Context,
): Context {
  const auth: AuthState<UserRecord> = { user, failure: null };
  if ('auth' in over) {
    return { ...over, auth };
  }
  const em = over;
  const stores = createStores(em);
  const loaders = createLoaders(stores);
  loaders.primeUsers([user]);
  const request = { authorization: undefined, ip: 'background' };
  return {
    em,
    auth,
    loaders,
    services: createServices(deps, request, stores, loaders),
    live: null,
  };
}
