import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type AuthState, authenticate } from './auth/authenticate';
import type { PasswordHasher } from './auth/password';
import type { TokenService } from './auth/tokens';
import { createLoaders, type Loaders } from './loaders';
import { AuthService } from './modules/auth/auth.service';
import { FollowService } from './modules/follow/follow.service';
import { MeetingService } from './modules/meeting/meeting.service';
import { UserService } from './modules/user/user.service';

/** What lives as long as the process: the ORM and the key material. */
export interface AppDependencies {
  orm: MikroORM;
  tokens: TokenService;
  passwords: PasswordHasher;
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
  };
}

/** Builds a fresh context: a forked entity manager, new loaders, the caller from the token. */
export async function createContext(
  deps: AppDependencies,
  authorization: string | undefined,
): Promise<Context> {
  const em = deps.orm.em.fork();
  const loaders = createLoaders(em);
  const auth = await authenticate(authorization, em, deps.tokens);
  return {
    em,
    auth,
    loaders,
    services: {
      auth: new AuthService(em, deps.passwords, deps.tokens),
      users: new UserService(em, deps.passwords),
      follows: new FollowService(em),
      meetings: new MeetingService(em, loaders),
    },
  } satisfies Context;
}
