import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AttemptLimiter } from './platform/auth/attempt-limiter';
import { type AuthState, authenticate, type RequestInfo } from './platform/auth/authenticate';
import type { PasswordHasher } from './platform/auth/password';
import type { TokenService } from './platform/auth/tokens';
import type { LiveScope } from './platform/live/live-scope';
import type { ChangeNotice } from './modules/meeting/meeting-event';
import {
  createLoaders,
  createServices,
  createStores,
  type Loaders,
  type Services,
} from './modules';
import { currentRequest } from './platform/observability/request-scope';
import { callerLookup } from './modules/user/user.caller';
import type { UserRecord } from './modules/user/user.store';

/** What lives as long as the process: the ORM and the key material. */
export interface AppDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
  attempts: AttemptLimiter;
  /** The most participants a meeting holds, the owner included. */
  maxParticipantsPerMeeting: number;
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

/** The caller of an `Authorization` value, read afresh (a live connection's, when it opens and
 * whenever sessions may have ended). */
export function authenticateCaller(
  deps: AppDependencies,
  authorization: string | undefined,
): Promise<AuthState<UserRecord>> {
  const users = createStores(deps.orm.em.fork()).users;
  return authenticate(authorization, callerLookup(users), deps.tokens);
}
