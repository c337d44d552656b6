import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AttemptLimiter, CountAttempt } from './auth/attempt-limiter';
import { type AuthState, authenticate } from './auth/authenticate';
import type { PasswordHasher } from './auth/password';
import type { TokenService } from './auth/tokens';
import { createLoaders, type Loaders } from './loaders';
import { createStores } from './stores';
import { AuthService } from './modules/auth/auth.service';
import { FollowService } from './modules/follow/follow.service';
import { currentRequest } from './observability/request-scope';
import { NodeService } from './modules/node/node.service';
import { MeetingService } from './modules/meeting/meeting.service';
import { MeetingLifecycleService } from './modules/meeting/meeting-lifecycle.service';
import { UserService } from './modules/user/user.service';

/** What lives as long as the process: the ORM and the key material. */
export interface AppDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
  attempts: AttemptLimiter;
}

/** What a context needs to know of the HTTP request it serves. */
export interface RequestInfo {
  authorization: string | undefined;
  /** The client address (after trusted proxies). */
  ip: string;
}

/** Everything one GraphQL operation (from /graphql or the REST facade) works with. */
export interface Context {
  em: EntityManager;
  auth: AuthState;
  loaders: Loaders;
  services: {
    auth: AuthService;
    users: UserService;
    follows: FollowService;
    meetings: MeetingService;
    meetingLifecycle: MeetingLifecycleService;
    nodes: NodeService;
  };
}

/** Builds a fresh context: a forked entity manager, new loaders, the caller from the token. */
export async function createContext(deps: AppDependencies, request: RequestInfo): Promise<Context> {
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
  const meetings = new MeetingService(stores, loaders);
  const limit: CountAttempt = (attempt) => deps.attempts.consume({ ...attempt, ip: request.ip });
  return {
    em,
    auth,
    loaders,
    services: {
      auth: new AuthService(stores, deps.passwords, deps.tokens, limit),
      users: new UserService(stores, deps.passwords, limit),
      follows: new FollowService(stores, loaders),
      meetings,
      meetingLifecycle: new MeetingLifecycleService(stores, loaders),
      nodes: new NodeService(stores, loaders, meetings),
    },
  } satisfies Context;
}
