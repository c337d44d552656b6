import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import { LinkTokens } from '../../src/platform/auth/link-tokens';
import { User } from '../../src/modules/user/user.entity';
import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { allowed, type Capability, forEveryone, forMembers } from './matrix-capability';

/*
 * The authorization matrix's rows for mail (issue 40), GraphQL only. verifyEmail needs no
 * sign-in (the link's token is the proof): anyone holding a valid token verifies its address.
 * resendVerificationEmail asks for the caller's own message. The link pages themselves are HTTP
 * routes outside the REST table (test/mail/).
 */

const VERIFY = `mutation ($token: String!) { verifyEmail(input: { token: $token }) { verified } }`;

/** Whether a user's address is verified, as stored. */
async function verifiedOf(t: TestApp, user: SeededUser | null): Promise<boolean | undefined> {
  const found = await t.instance.database.orm.em.fork().findOne(User, { id: user?.id ?? '' });
  return found?.emailVerified;
}

/** The user each case verifies, by the case's number. */
const verifying = new Map<number, SeededUser>();

export const mailCapabilities: Capability[] = [
  {
    action: 'verify an address with its link’s token',
    rest: [],
    graphql: { operation: 'mutation', field: 'verifyEmail' },
    restCall: () => ({}),
    graphqlCall: async (s) => {
      // A fresh user each call (the scene's target), and a token as the message carries it.
      const user = await s.world.t.seed.user();
      verifying.set(s.n, user);
      const token = LinkTokens.of({ privateKeyPem: null, secret: DEFAULT_JWT_SECRET }).sign(
        'verify-email',
        { u: user.id, e: user.email, exp: Math.floor(Date.now() / 1000) + 600 },
      );
      return { query: VERIFY, variables: { token } };
    },
    outcomes: forEveryone(
      allowed(200, async ({ root, scene }) => {
        expect(root).toEqual({ verified: true });
        expect(await verifiedOf(scene.world.t, verifying.get(scene.n) ?? null)).toBe(true);
      }),
    ),
  },
  {
    action: 'ask for another verification message to their own address',
    rest: [],
    graphql: { operation: 'mutation', field: 'resendVerificationEmail' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: 'mutation { resendVerificationEmail { sent } }' }),
    outcomes: forMembers(
      allowed(200, async ({ root, user, scene }) => {
        expect(root).toEqual({ sent: true });
        expect(await verifiedOf(scene.world.t, user)).toBe(false);
      }),
    ),
  },
];
