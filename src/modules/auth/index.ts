import { AuthResolver } from './auth.resolver';
import type { PasswordHasher } from '../../platform/auth/password';
import type { TokenService } from '../../platform/auth/tokens';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { authModuleSettings } from './auth.settings';
import { type AuthStores, AuthService } from './auth.service';
import { RefreshToken } from './refresh-token.entity';
import { RefreshTokenStore } from './refresh-token.store';

/** What sign-in needs of the process: password hashing, token keys, the first admins. */
interface AuthDeps {
  passwords: PasswordHasher;
  tokens: TokenService;
  adminEmails: readonly string[];
}

/** Sign-in: tokens, refresh sessions, logout, password changes. */
export const authModule = defineModule({
  name: 'auth',
  settings: authModuleSettings,
  entities: [RefreshToken],
  resolvers: [AuthResolver],
  stores: { refreshTokens: RefreshTokenStore },
  services: {
    auth: (p: ServiceParts<AuthStores, unknown, AuthDeps>) =>
      new AuthService(p.stores, p.deps.passwords, p.deps.tokens, p.limit, p.deps.adminEmails),
  },
  deps: (setup: { config: { adminEmails: readonly string[] } }) => ({
    adminEmails: setup.config.adminEmails,
  }),
});
