import { RefreshToken } from '../../src/modules/auth/refresh-token.entity';
import { User } from '../../src/modules/user/user.entity';
import type { TestApp } from '../helpers/test-app';
import { allowed, type Capability, forEveryone, forMembers } from './matrix-capability';

/*
 * The authorization matrix's rows for sessions and the caller's own account (docs/rest-contract.md
 * §7): GraphQL only. They act on the caller's own account, or (logout) on the session whose refresh
 * token is presented, whoever presents it.
 */

const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken } }
}`;

const CHANGE_PASSWORD = `mutation ($input: ChangePasswordInput!) {
  changePassword(input: $input) { user { id } tokens { accessToken refreshToken } }
}`;

/** The reason a sign-in with `password` is refused, or null when it succeeds. */
async function signInRefusal(t: TestApp, email: string, password: string): Promise<unknown> {
  const result = await t.gql.request(LOGIN, { username: email, password });
  return result.errors?.[0]?.extensions?.['reason'] ?? null;
}

/** The access token of a new sign-in with `password`. */
async function accessTokenOf(t: TestApp, email: string, password: string): Promise<string> {
  const result = await t.gql.data<{ login: { tokens: { accessToken: string } } }>(LOGIN, {
    username: email,
    password,
  });
  return result.login.tokens.accessToken;
}

/** The `fam` claim of a refresh token (the family logout revokes). */
function familyOf(refreshToken: string): string {
  const payload = refreshToken.split('.')[1] ?? '';
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { fam: string }).fam;
}

/** How many tokens of a family are revoked, and how many there are. */
async function familyState(t: TestApp, familyId: string) {
  const em = t.instance.database.orm.em.fork();
  return {
    revoked: await em.count(RefreshToken, { familyId, revokedAt: { $ne: null } }),
    total: await em.count(RefreshToken, { familyId }),
  };
}

/** A new password for a case: the seeded one, made unique. */
const newPasswordOf = (password: string, n: number) => `${password} changed ${n}`;

export const sessionCapabilities: Capability[] = [
  {
    action: 'edit their own profile',
    rest: [],
    graphql: { operation: 'mutation', field: 'updateProfile' },
    restCall: () => ({}),
    // The profile and the caller's own mail preferences (User.mailPreferences: theirs to see).
    graphqlCall: (s) => ({
      query: `mutation ($input: UpdateProfileInput!) {
        updateProfile(input: $input) { user { id bio mailPreferences { updates answers } } }
      }`,
      variables: {
        input: { bio: `Matrix bio ${s.n}`, mailPreferences: { answers: s.n % 2 === 0 } },
      },
    }),
    outcomes: forMembers(
      allowed(200, async ({ root, user, scene }) => {
        const bio = `Matrix bio ${scene.n}`;
        const answers = scene.n % 2 === 0;
        expect(root).toEqual({
          user: { id: user?.id, bio, mailPreferences: { updates: true, answers } },
        });
        const em = scene.world.t.instance.database.orm.em.fork();
        const stored = await em.findOneOrFail(User, { id: user?.id ?? '' });
        expect(stored.bio).toBe(bio);
        expect(stored.mailMuted).toEqual(answers ? [] : ['answers']);
      }),
    ),
  },
  {
    action: 'change their own password',
    rest: [],
    graphql: { operation: 'mutation', field: 'changePassword' },
    restCall: () => ({}),
    // Each caller gives their own current password (any for anonymous, who is refused first).
    graphqlCall: (s, user) => ({
      query: CHANGE_PASSWORD,
      variables: {
        input: {
          currentPassword: user?.password ?? 'correct horse battery',
          newPassword: newPasswordOf(user?.password ?? 'correct horse battery', s.n),
        },
      },
    }),
    outcomes: forMembers(
      allowed(
        200,
        async ({ root, user, scene }) => {
          if (!user) {
            throw new Error('a signed-in caller was expected');
          }
          const { t } = scene.world;
          const changed = newPasswordOf(user.password, scene.n);
          const calledWith = user.token;
          try {
            expect(root).toEqual({
              user: { id: user.id },
              tokens: { accessToken: expect.any(String), refreshToken: expect.any(String) },
            });
            expect(await signInRefusal(t, user.email, changed)).toBeNull();
            expect(await signInRefusal(t, user.email, user.password)).toBe(
              'INCORRECT_EMAIL_OR_PASSWORD',
            );
          } finally {
            // The seeded password back, so later rows and suites can still sign the caller in:
            // changed with the session the change answered (it ended every other one), and the
            // session this answers is the one later rows call with.
            const setBack = await t.gql.data<{
              changePassword: { tokens: { accessToken: string } };
            }>(
              CHANGE_PASSWORD,
              { input: { currentPassword: changed, newPassword: user.password } },
              await accessTokenOf(t, user.email, changed),
            );
            user.token = setBack.changePassword.tokens.accessToken;
          }
          expect(await signInRefusal(t, user.email, user.password)).toBeNull();
          // The change ended the session the matrix called with, its access token too
          // (docs/rest-contract.md §7); the session it answered goes on.
          expect((await t.gql.error('{ me { id } }', {}, calledWith)).extensions).toEqual({
            code: 'UNAUTHENTICATED',
            reason: 'INVALID_TOKEN',
          });
          expect(await t.gql.data('{ me { id } }', {}, user.token)).toEqual({
            me: { id: user.id },
          });
        },
        'then it is set back',
      ),
    ),
  },
  {
    action: "end a session with the session's refresh token",
    rest: [],
    graphql: { operation: 'mutation', field: 'logout' },
    restCall: () => ({}),
    // A sign-in of its own per case: logout revokes the family of the shared scene token too.
    graphqlCall: async (s) => ({
      query: `mutation ($input: LogoutInput!) { logout(input: $input) { sessionEnded } }`,
      variables: { input: { refreshToken: await s.session() } },
    }),
    // The refresh token is the credential: no bearer token is needed, and none is looked at.
    outcomes: forEveryone(
      allowed(200, async ({ root, scene }) => {
        const { t } = scene.world;
        const session = await scene.session();
        expect(root).toEqual({ sessionEnded: true });
        expect(await familyState(t, familyOf(session))).toEqual({ revoked: 1, total: 1 });
        const reuse = await t.gql.request(
          'mutation ($token: String!) { refreshToken(input: { refreshToken: $token }) { tokens { accessToken } } }',
          { token: session },
        );
        expect(reuse.errors?.map((e) => e.extensions)).toEqual([
          { code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' },
        ]);
        // The scene's shared sign-in of the same user goes on.
        expect((await familyState(t, familyOf(scene.refreshToken))).revoked).toBe(0);
      }),
    ),
  },
];
