import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

const FIELDS =
  'id name email account roles isSuperuser isActive bio phone dob avatarPhotoId updatedAt';
const UPDATE = `mutation ($input: UpdateProfileInput!) { updateProfile(input: $input) { user { ${FIELDS} } } }`;
const CHANGE = `mutation ($input: ChangePasswordInput!) {
  changePassword(input: $input) { user { id } tokens { accessToken refreshToken } }
}`;
const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken refreshToken } }
}`;
const REFRESH = `mutation ($token: String!) {
  refreshToken(input: { refreshToken: $token }) { tokens { accessToken } }
}`;

type Profile = Record<string, unknown>;

describe('the profile', () => {
  let t: TestApp;
  let rest: RestClient;

  beforeAll(async () => {
    t = await startTestApp();
    rest = new RestClient(t.url);
  });
  afterAll(() => t.close());

  const update = async (user: SeededUser, input: Record<string, unknown>): Promise<Profile> =>
    (await t.gql.data<{ updateProfile: { user: Profile } }>(UPDATE, { input }, user.token))
      .updateProfile.user;

  it("changes the caller's own name, bio, phone, date of birth and avatar", async () => {
    const user = await t.seed.user();
    const avatar = 'A1B2C3D4-0000-4000-8000-00000000000F';
    const changed = await update(user, {
      name: '  Ada King-Noel ',
      bio: 'Wrote the first program.',
      phone: ' +44 20 7946 0958 ',
      dob: '1815-12-10',
      avatarPhotoId: avatar,
    });
    expect(changed).toEqual({
      id: user.id,
      name: 'Ada King-Noel',
      email: user.email,
      account: user.account,
      roles: 'USER',
      isSuperuser: false,
      isActive: true,
      bio: 'Wrote the first program.',
      phone: '+44 20 7946 0958',
      dob: '1815-12-10',
      avatarPhotoId: avatar.toLowerCase(),
      updatedAt: expect.stringMatching(/Z$/),
    });
    // The REST face answers the stored record.
    const me = await rest.get<Profile>('/user/me', { token: user.token });
    expect(me.body).toMatchObject({
      name: 'Ada King-Noel',
      bio: 'Wrote the first program.',
      phone: '+44 20 7946 0958',
      dob: '1815-12-10',
      avatar_photo_id: avatar.toLowerCase(),
    });
  });

  it('leaves fields it is not given alone, and clears those given as null or empty', async () => {
    const user = await t.seed.user();
    await update(user, { bio: 'Some words here', phone: '12345', dob: '1990-01-31' });
    const changed = await update(user, { bio: null, phone: '  ' });
    expect(changed).toMatchObject({ name: user.name, bio: null, phone: null, dob: '1990-01-31' });
  });

  it('refuses values outside the limits, naming each field', async () => {
    const user = await t.seed.user();
    const error = await t.gql.error(
      UPDATE,
      {
        input: {
          name: 'Short',
          bio: 'b'.repeat(201),
          phone: '1'.repeat(21),
          dob: '2020-02-30',
          avatarPhotoId: 'not-a-uuid',
        },
      },
      user.token,
    );
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: {
        name: 'TOO_SHORT',
        bio: 'TOO_LONG',
        phone: 'TOO_LONG',
        dob: 'INVALID_DATE',
        avatarPhotoId: 'INVALID_UUID',
      },
    });
    const cleared = await t.gql.error(UPDATE, { input: { name: null } }, user.token);
    expect(cleared.extensions?.fields).toEqual({ name: 'REQUIRED' });
    const me = await rest.get<Profile>('/user/me', { token: user.token });
    expect(me.body).toMatchObject({ name: user.name, bio: null });
  });

  it('has no way to change email, account, roles or flags', async () => {
    const user = await t.seed.user();
    for (const field of ['email: "x@example.com"', 'account: "other"', 'roles: ADMIN']) {
      const result = await t.gql.request(
        `mutation { updateProfile(input: { ${field} }) { user { id } } }`,
        {},
        user.token,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
    const me = await rest.get<Profile>('/user/me', { token: user.token });
    expect(me.body).toMatchObject({ email: user.email, account: user.account, roles: 'user' });
  });

  it('refuses an anonymous caller before looking at the input', async () => {
    const error = await t.gql.error(UPDATE, { input: { name: 'x' } });
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' });
  });
});

describe('the password change', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A small per-account budget, so the attempt limiter's count can be seen.
    t = await startTestApp({ RATE_LIMIT_AUTH_PER_ACCOUNT: '6' });
  });
  afterAll(() => t.close());

  const login = (user: SeededUser, password = user.password) =>
    t.gql.request<{ login: { tokens: { accessToken: string; refreshToken: string } } }>(LOGIN, {
      username: user.email,
      password,
    });

  it('needs the current password, then ends every session and starts a new one', async () => {
    const user = await t.seed.user();
    const sessions = [
      (await login(user)).data?.login.tokens,
      (await login(user)).data?.login.tokens,
    ];
    const changed = await t.gql.data<{
      changePassword: { user: { id: string }; tokens: { refreshToken: string } };
    }>(
      CHANGE,
      { input: { currentPassword: user.password, newPassword: 'a new passphrase' } },
      user.token,
    );
    expect(changed.changePassword).toEqual({
      user: { id: user.id },
      tokens: { accessToken: expect.any(String), refreshToken: expect.any(String) },
    });
    for (const session of sessions) {
      const error = await t.gql.error(REFRESH, { token: session?.refreshToken });
      expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' });
    }
    await expect(
      t.gql.data(REFRESH, { token: changed.changePassword.tokens.refreshToken }),
    ).resolves.toBeTruthy();
    expect((await login(user)).errors?.[0]?.extensions?.reason).toBe('INCORRECT_EMAIL_OR_PASSWORD');
    expect((await login(user, 'a new passphrase')).data?.login).toBeTruthy();
  });

  it('serialises concurrent changes: of two with the same current password, one wins', async () => {
    const user = await t.seed.user();
    const before = await t.gql.data<{ me: { updatedAt: string } }>(
      '{ me { updatedAt } }',
      {},
      user.token,
    );
    const attempts = await Promise.all(
      ['first passphrase', 'second passphrase'].map((newPassword) =>
        t.gql.request<{ changePassword: { user: { id: string; updatedAt: string } } }>(
          CHANGE.replace('user { id }', 'user { id updatedAt }'),
          { input: { currentPassword: user.password, newPassword } },
          user.token,
        ),
      ),
    );
    const won = attempts.filter((attempt) => attempt.data?.changePassword);
    const lost = attempts.filter((attempt) => attempt.errors);
    expect(won).toHaveLength(1);
    // The loser is refused: either it reached the row lock and found the password changed, or
    // (when it was authenticated only after the winner committed) its session had already ended
    // with the change (docs/rest-contract.md §7). It never wins.
    expect(lost).toHaveLength(1);
    const refusal = lost[0]?.errors?.[0]?.extensions;
    expect([
      { fields: { currentPassword: 'MISMATCH' } },
      { code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' },
    ]).toContainEqual(
      refusal?.['fields']
        ? { fields: refusal['fields'] }
        : { code: refusal?.['code'], reason: refusal?.['reason'] },
    );
    // The winner's new password signs in, the loser's does not; the record says when it changed.
    const winner = attempts.indexOf(won[0] as (typeof attempts)[number]);
    const [winning, losing] =
      winner === 0
        ? ['first passphrase', 'second passphrase']
        : ['second passphrase', 'first passphrase'];
    expect((await login(user, winning)).data?.login).toBeTruthy();
    expect((await login(user, losing)).errors?.[0]?.extensions?.reason).toBe(
      'INCORRECT_EMAIL_OR_PASSWORD',
    );
    const changedAt = won[0]?.data?.changePassword.user.updatedAt ?? '';
    expect(Date.parse(changedAt)).toBeGreaterThan(Date.parse(before.me.updatedAt));
  });

  it('refuses a wrong current password as a bad input on that field, changing nothing', async () => {
    const user = await t.seed.user();
    const session = (await login(user)).data?.login.tokens;
    const error = await t.gql.error(
      CHANGE,
      { input: { currentPassword: 'not my password', newPassword: 'a new passphrase' } },
      user.token,
    );
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: { currentPassword: 'MISMATCH' },
    });
    await expect(t.gql.data(REFRESH, { token: session?.refreshToken })).resolves.toBeTruthy();
    expect((await login(user)).data?.login).toBeTruthy();
  });

  it('refuses a new password outside 8 to 128 characters', async () => {
    const user = await t.seed.user();
    const error = await t.gql.error(
      CHANGE,
      { input: { currentPassword: user.password, newPassword: 'short' } },
      user.token,
    );
    expect(error.extensions?.fields).toEqual({ newPassword: 'TOO_SHORT' });
  });

  it('counts attempts like sign-ins: guesses here spend the sign-in budget of the account', async () => {
    const user = await t.seed.user(); // one sign-in
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < 5; i += 1) {
      const error = await t.gql.error(
        CHANGE,
        { input: { currentPassword: `guess number ${i}`, newPassword: 'a new passphrase' } },
        user.token,
      );
      codes.push(error.extensions?.code);
    }
    expect(codes).toEqual(Array(5).fill('BAD_USER_INPUT'));
    const next = await t.gql.error(
      CHANGE,
      { input: { currentPassword: user.password, newPassword: 'a new passphrase' } },
      user.token,
    );
    expect(next.extensions?.code).toBe('TOO_MANY_REQUESTS');
    expect((await login(user)).errors?.[0]?.extensions?.code).toBe('TOO_MANY_REQUESTS');
  });

  it('refuses an anonymous caller', async () => {
    const error = await t.gql.error(CHANGE, {
      input: { currentPassword: 'whatever1', newPassword: 'whatever2' },
    });
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' });
  });
});
