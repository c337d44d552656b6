import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AttemptLimiter, CountAttempt } from './auth/attempt-limiter';
import { type AuthState, authenticate } from './auth/authenticate';
import type { PasswordHasher } from './auth/password';
import type { TokenService } from './auth/tokens';
import type { LiveScope } from './events/live-scope';
import { createLoaders, type Loaders } from './loaders';
import { createStores, type Stores } from './stores';
import { AuthService } from './modules/auth/auth.service';
import { FollowService } from './modules/follow/follow.service';
import { currentRequest } from './observability/request-scope';
import { MeetingService } from './modules/meeting/meeting.service';
import { MeetingLifecycleService } from './modules/meeting/meeting-lifecycle.service';
import { NodeService } from './modules/node/node.service';
import { UserService } from './modules/user/user.service';

/** What lives as long as the process: the ORM and the key material. */
export interface AppDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
  attempts: AttemptLimiter;
  /** The most participants a meeting holds, the owner included. */
  maxParticipantsPerMeeting: number;
}

/** What a context needs to know of the HTTP request it serves. */
export interface RequestInfo {
  authorization: string | undefined;
  /** The client address (after trusted proxies). */
  ip: string;
}

/** The services of one request. */
export interface Services {
  readonly auth: AuthService;
  readonly users: UserService;
  readonly follows: FollowService;
  readonly meetings: MeetingService;
  readonly meetingLifecycle: MeetingLifecycleService;
  readonly nodes: NodeService;
}

/** Everything one GraphQL operation (from /graphql or the REST facade) works with. */
export interface Context {
  em: EntityManager;
  auth: AuthState;
  loaders: Loaders;
  services: Services;
  /** A subscription's events (WebSocket only); null for queries and mutations over HTTP. */
  live: LiveScope | null;
}

/**
 * A request's services, each built on first use: an operation calls one of them, so a request
 * does not allocate the others (getters on the prototype, no closure per request).
 */
class RequestServices implements Services {
  #auth?: AuthService;
  #users?: UserService;
  #follows?: FollowService;
  #meetings?: MeetingService;
  #meetingLifecycle?: MeetingLifecycleService;
  #nodes?: NodeService;

  constructor(
    private readonly deps: AppDependencies,
    private readonly request: RequestInfo,
    private readonly stores: Stores,
    private readonly loaders: Loaders,
  ) {}

  /** Sign-in attempts count against the request's address. */
  private readonly limit: CountAttempt = (attempt) =>
    this.deps.attempts.consume({ ...attempt, ip: this.request.ip });

  get auth(): AuthService {
    const { stores, deps } = this;
    return (this.#auth ??= new AuthService(stores, deps.passwords, deps.tokens, this.limit));
  }

  get users(): UserService {
    return (this.#users ??= new UserService(this.stores, this.deps.passwords, this.limit));
  }

  get follows(): FollowService {
    return (this.#follows ??= new FollowService(this.stores, this.loaders));
  }

  get meetings(): MeetingService {
    const { stores, loaders, deps } = this;
    return (this.#meetings ??= new MeetingService(stores, loaders, deps.maxParticipantsPerMeeting));
  }

  get meetingLifecycle(): MeetingLifecycleService {
    return (this.#meetingLifecycle ??= new MeetingLifecycleService(this.stores, this.loaders));
  }

  get nodes(): NodeService {
    return (this.#nodes ??= new NodeService(this.stores, this.loaders, this.meetings));
  }
}

/** Builds a fresh context: a forked entity manager, new loaders, the caller from the token. */
export async function createContext(
  deps: AppDependencies,
  request: RequestInfo,
  live: LiveScope | null = null,
): Promise<Context> {
  const em = deps.orm.em.fork();
  const stores = createStores(em);
  const loaders = createLoaders(stores);
  const auth = await authenticate(request.authorization, stores.users, deps.tokens);
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
    services: new RequestServices(deps, request, stores, loaders),
    live,
  };
}
