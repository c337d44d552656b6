import { startTestApp, type TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';

const SEARCH = `query ($q: String!, $skip: Int, $limit: Int) {
  searchUsers(q: $q, skip: $skip, limit: $limit) { count data { id name account } }
}`;
const USER = `query ($account: String!) { user(account: $account) { id account followingCount followersCount } }`;
const FOLLOW = `mutation ($userId: UUID!) {
  follow(input: { userId: $userId }) { follow { id followerId followingId following { id } createdAt } }
}`;
const UNFOLLOW = `mutation ($userId: UUID!) { unfollow(input: { userId: $userId }) { unfollowed } }`;
const FOLLOWING = `query ($skip: Int, $limit: Int) {
  following(skip: $skip, limit: $limit) { count data { id followingId user: following { id account } createdAt updatedAt } }
}`;
const FOLLOWERS = `{ followers { count data { followerId user: follower { id } } } }`;
const STATUS = `query ($userId: UUID!) { followStatus(userId: $userId) { isFollowing isFollowedBy isMutual } }`;

describe('users', () => {
  let t: TestApp;
  let viewer: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    viewer = await t.seed.user({ name: 'Viewer Person', account: 'viewer' });
    for (const [name, account] of [
      ['Zed Mc_Donald', 'zed.mcd'],
      ['Anna 100% Real', 'anna.real'],
      ['anna lowercase', 'anna.low'],
      ['Back\\slash Name', 'back.slash'],
      ['Hidden Anna User', 'anna.hidden'],
    ] as const) {
      await t.seed.user({ name, account });
    }
    await t.seed.update(
      {
        id: (
          await t.gql.data<{ user: { id: string } }>(USER, { account: 'anna.hidden' }, viewer.token)
        ).user.id,
      } as SeededUser,
      { isActive: false },
    );
  });
  afterAll(() => t.close());

  it('finds users by a case-insensitive substring of name, account or email, ordered by name', async () => {
    const data = await t.gql.data<{
      searchUsers: { count: number; data: Array<{ account: string }> };
    }>(SEARCH, { q: 'ANNA' }, viewer.token);
    expect(data.searchUsers.data.map((u) => u.account)).toEqual(['anna.real', 'anna.low']);
    expect(data.searchUsers.count).toBe(2);
    const byEmail = await t.gql.data<{ searchUsers: { count: number } }>(
      SEARCH,
      { q: 'zed.mcd@example' },
      viewer.token,
    );
    expect(byEmail.searchUsers.count).toBe(1);
  });

  it('treats %, _ and \\ as literal characters', async () => {
    const percent = await t.gql.data<{ searchUsers: { data: Array<{ account: string }> } }>(
      SEARCH,
      { q: '0%' },
      viewer.token,
    );
    expect(percent.searchUsers.data.map((u) => u.account)).toEqual(['anna.real']);
    const underscore = await t.gql.data<{ searchUsers: { data: Array<{ account: string }> } }>(
      SEARCH,
      { q: 'c_d' },
      viewer.token,
    );
    expect(underscore.searchUsers.data.map((u) => u.account)).toEqual(['zed.mcd']);
    const backslash = await t.gql.data<{ searchUsers: { data: Array<{ account: string }> } }>(
      SEARCH,
      { q: 'k\\s' },
      viewer.token,
    );
    expect(backslash.searchUsers.data.map((u) => u.account)).toEqual(['back.slash']);
  });

  it('counts all matches while returning one page', async () => {
    const page = await t.gql.data<{ searchUsers: { count: number; data: unknown[] } }>(
      SEARCH,
      { q: 'example', skip: 1, limit: 2 },
      viewer.token,
    );
    expect(page.searchUsers.count).toBe(5);
    expect(page.searchUsers.data).toHaveLength(2);
  });

  it('validates the query text and the page bounds', async () => {
    expect((await t.gql.error(SEARCH, { q: ' a ' }, viewer.token)).extensions?.fields).toEqual({
      q: 'TOO_SHORT',
    });
    expect(
      (await t.gql.error(SEARCH, { q: 'x'.repeat(101) }, viewer.token)).extensions?.fields,
    ).toEqual({ q: 'TOO_LONG' });
    expect(
      (await t.gql.error(SEARCH, { q: 'an', skip: -1, limit: 0 }, viewer.token)).extensions?.fields,
    ).toEqual({
      skip: 'TOO_SMALL',
      limit: 'TOO_SMALL',
    });
    const max = await t.gql.data<{ searchUsers: { count: number } }>(
      SEARCH,
      { q: 'an', limit: 100 },
      viewer.token,
    );
    expect(max.searchUsers.count).toBeGreaterThan(0);
  });

  it('finds a user by account, case-insensitively, but not an inactive one', async () => {
    expect(
      (await t.gql.data<{ user: { account: string } }>(USER, { account: 'ZED.MCD' }, viewer.token))
        .user.account,
    ).toBe('zed.mcd');
    expect((await t.gql.error(USER, { account: 'anna.hidden' }, viewer.token)).extensions).toEqual({
      code: 'NOT_FOUND',
      reason: 'USER_NOT_FOUND',
    });
  });
});

describe('follows', () => {
  let t: TestApp;
  let ann: SeededUser;
  let ben: SeededUser;
  let cat: SeededUser;

  beforeAll(async () => {
    t = await startTestApp();
    [ann, ben, cat] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  it('follows users, lists them newest first with a total, and counts them', async () => {
    const first = await t.gql.data<{ follow: { follow: Record<string, unknown> } }>(
      FOLLOW,
      { userId: ben.id },
      ann.token,
    );
    expect(first.follow.follow).toEqual({
      id: expect.any(String),
      followerId: ann.id,
      followingId: ben.id,
      following: { id: ben.id },
      createdAt: expect.any(String),
    });
    await t.gql.data(FOLLOW, { userId: cat.id }, ann.token);
    const list = await t.gql.data<{
      following: { count: number; data: Array<{ followingId: string; user: { id: string } }> };
    }>(FOLLOWING, {}, ann.token);
    expect(list.following.count).toBe(2);
    expect(list.following.data.map((f) => f.user.id)).toEqual([cat.id, ben.id]);
    const page = await t.gql.data<{ following: { count: number; data: unknown[] } }>(
      FOLLOWING,
      { skip: 1, limit: 1 },
      ann.token,
    );
    expect(page.following).toMatchObject({
      count: 2,
      data: [expect.objectContaining({ followingId: ben.id })],
    });
    const counts = await t.gql.data<{ user: { followingCount: number; followersCount: number } }>(
      USER,
      { account: ann.account },
      ann.token,
    );
    expect(counts.user).toMatchObject({ followingCount: 2, followersCount: 0 });
  });

  it('makes following twice harmless, and refuses following yourself or an unknown user', async () => {
    await t.gql.data(FOLLOW, { userId: ben.id }, cat.token);
    await t.gql.data(FOLLOW, { userId: ben.id }, cat.token);
    const followers = await t.gql.data<{ followers: { count: number } }>(FOLLOWERS, {}, ben.token);
    expect(followers.followers.count).toBe(2);
    expect((await t.gql.error(FOLLOW, { userId: cat.id }, cat.token)).extensions).toEqual({
      code: 'CONFLICT',
      reason: 'CANNOT_FOLLOW_YOURSELF',
    });
    expect(
      (await t.gql.error(FOLLOW, { userId: '00000000-0000-4000-8000-000000000000' }, cat.token))
        .extensions,
    ).toMatchObject({ reason: 'USER_NOT_FOUND' });
    expect((await t.gql.error(FOLLOW, { userId: 'nope' }, cat.token)).extensions?.fields).toEqual({
      userId: 'INVALID_UUID',
    });
  });

  it('reports mutual status and unfollows idempotently', async () => {
    await t.gql.data(FOLLOW, { userId: ann.id }, ben.token);
    expect(
      (await t.gql.data<{ followStatus: unknown }>(STATUS, { userId: ben.id }, ann.token))
        .followStatus,
    ).toEqual({
      isFollowing: true,
      isFollowedBy: true,
      isMutual: true,
    });
    expect(
      (
        await t.gql.data<{ unfollow: { unfollowed: boolean } }>(
          UNFOLLOW,
          { userId: ben.id },
          ann.token,
        )
      ).unfollow.unfollowed,
    ).toBe(true);
    expect(
      (
        await t.gql.data<{ unfollow: { unfollowed: boolean } }>(
          UNFOLLOW,
          { userId: ben.id },
          ann.token,
        )
      ).unfollow.unfollowed,
    ).toBe(false);
    expect(
      (await t.gql.data<{ followStatus: unknown }>(STATUS, { userId: ben.id }, ann.token))
        .followStatus,
    ).toEqual({
      isFollowing: false,
      isFollowedBy: true,
      isMutual: false,
    });
  });

  it('keeps one follow under concurrent follows of the same user', async () => {
    const dan = await t.seed.user();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.gql.request(FOLLOW, { userId: ann.id }, dan.token)),
    );
    expect(results.every((r) => !r.errors)).toBe(true);
    const list = await t.gql.data<{ following: { count: number } }>(FOLLOWING, {}, dan.token);
    expect(list.following.count).toBe(1);
  });
});
