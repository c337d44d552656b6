import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import {
  aDateTime,
  aUuid,
  expectAnswer,
  FOLLOW_ENTRY_KEYS,
  keysOf,
  sortedKeys,
  UNKNOWN_ID,
  USER_PUBLIC_KEYS,
  userPublic,
  type WireFollow,
} from './rest-fixtures';

interface FollowingList {
  data: WireFollow[];
  count: number;
}

interface FollowersList {
  data: Array<Record<string, unknown> & { user: { id: string } }>;
  count: number;
}

const followed = { message: 'User followed successfully' };
const unfollowed = { message: 'User unfollowed successfully' };

/** The expected following-list entry for a seeded user. */
const followEntry = (user: SeededUser): unknown => ({
  id: aUuid(),
  following_id: user.id,
  user: userPublic({ id: user.id, name: user.name, account: user.account, email: user.email }),
  created_at: aDateTime(),
  updated_at: aDateTime(),
});

describe('follows over REST', () => {
  const t = useTestApp();
  const { rest } = t;

  const follow = (who: SeededUser, whom: SeededUser | string, alias = false) => {
    const id = typeof whom === 'string' ? whom : whom.id;
    return rest.post(alias ? `/follow/${id}/add` : `/follow/follow/${id}`, undefined, {
      token: who.token,
    });
  };
  const unfollow = (who: SeededUser, whom: SeededUser | string, alias = false) => {
    const id = typeof whom === 'string' ? whom : whom.id;
    return rest.post(alias ? `/follow/${id}/remove` : `/follow/unfollow/${id}`, undefined, {
      token: who.token,
    });
  };
  const following = (who: SeededUser, query: Record<string, number> = {}) =>
    rest.get<FollowingList>('/follow/following', { token: who.token, query });

  it('follows a user with POST /follow/follow/{user_id} and answers the message', async () => {
    const [ann, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    expectAnswer(await follow(ann, ben), 200, followed);
    expectAnswer(await following(ann), 200, { data: [followEntry(ben)], count: 1 });
  });

  it('lists the follows newest first, each entry with exactly its five fields', async () => {
    const [fan, first, second, third] = (await t.seed.users(4)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    for (const user of [first, second, third]) {
      expect((await follow(fan, user)).status).toBe(200);
    }
    const response = await following(fan);
    expectAnswer(response, 200, {
      data: [followEntry(third), followEntry(second), followEntry(first)],
      count: 3,
    });
    for (const entry of response.body.data) {
      expect(keysOf(entry)).toEqual(sortedKeys(FOLLOW_ENTRY_KEYS));
      expect(keysOf(entry.user)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
    }
    const page = await following(fan, { skip: 1, limit: 1 });
    expectAnswer(page, 200, { data: [followEntry(second)], count: 3 });
  });

  it('answers an empty following list for a user who follows no one', async () => {
    const loner = await t.seed.user();
    expectAnswer(await following(loner), 200, { data: [], count: 0 });
  });

  it('answers GET /follow/me/following exactly like GET /follow/following', async () => {
    const [fan, a, b] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    await follow(fan, a);
    await follow(fan, b);
    const canonical = await following(fan);
    const alias = await rest.get('/follow/me/following', { token: fan.token });
    expect({ status: alias.status, body: alias.body }).toEqual({
      status: canonical.status,
      body: canonical.body,
    });
  });

  it('answers POST /follow/{user_id}/add exactly like POST /follow/follow/{user_id}', async () => {
    const [fan, a, b] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    const canonical = await follow(fan, a);
    const alias = await follow(fan, b, true);
    expectAnswer(alias, canonical.status, canonical.body);
    expectAnswer(await following(fan), 200, { data: [followEntry(b), followEntry(a)], count: 2 });
  });

  it('unfollows with POST /follow/unfollow/{user_id} and its alias POST /follow/{user_id}/remove', async () => {
    const [fan, a, b, c] = (await t.seed.users(4)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
    for (const user of [a, b, c]) {
      await follow(fan, user);
    }
    const canonical = await unfollow(fan, a);
    expectAnswer(canonical, 200, unfollowed);
    const alias = await unfollow(fan, b, true);
    expectAnswer(alias, canonical.status, canonical.body);
    expectAnswer(await following(fan), 200, { data: [followEntry(c)], count: 1 });
  });

  it('lists followers, and GET /follow/me/followers answers exactly like GET /follow/followers', async () => {
    const [star, fan1, fan2] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    await follow(fan1, star);
    await follow(fan2, star);
    const canonical = await rest.get<FollowersList>('/follow/followers', { token: star.token });
    expect(canonical.status).toBe(200);
    expect(canonical.body.count).toBe(2);
    expect(canonical.body.data.map((entry) => entry.user.id)).toEqual([fan2.id, fan1.id]);
    const alias = await rest.get('/follow/me/followers', { token: star.token });
    expect({ status: alias.status, body: alias.body }).toEqual({
      status: canonical.status,
      body: canonical.body,
    });
  });

  it('tells whether two users follow each other', async () => {
    const [ann, ben, cid] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    await follow(ann, ben);
    await follow(ben, ann);
    await follow(cid, ann);
    const status = (viewer: SeededUser, other: SeededUser) =>
      rest.get(`/follow/status/${other.id}`, { token: viewer.token });
    expectAnswer(await status(ann, ben), 200, {
      is_following: true,
      is_followed_by: true,
      is_mutual: true,
    });
    expectAnswer(await status(ann, cid), 200, {
      is_following: false,
      is_followed_by: true,
      is_mutual: false,
    });
    expectAnswer(await status(cid, ann), 200, {
      is_following: true,
      is_followed_by: false,
      is_mutual: false,
    });
    expectAnswer(await status(ben, cid), 200, {
      is_following: false,
      is_followed_by: false,
      is_mutual: false,
    });
  });

  it('answers 404 USER_NOT_FOUND for an unknown user on follow, unfollow and status', async () => {
    const fan = await t.seed.user();
    const notFound = { errors: 'USER_NOT_FOUND' };
    expectAnswer(await follow(fan, UNKNOWN_ID), 404, notFound);
    expectAnswer(await follow(fan, UNKNOWN_ID, true), 404, notFound);
    expectAnswer(await unfollow(fan, UNKNOWN_ID), 404, notFound);
    expectAnswer(await unfollow(fan, UNKNOWN_ID, true), 404, notFound);
    expectAnswer(
      await rest.get(`/follow/status/${UNKNOWN_ID}`, { token: fan.token }),
      404,
      notFound,
    );
  });

  it('refuses a malformed user id in the path with 422 on user_id', async () => {
    const fan = await t.seed.user();
    const invalid = { errors: { user_id: 'VALIDATION_USER_ID_INVALID_UUID' } };
    expectAnswer(await follow(fan, 'not-a-uuid'), 422, invalid);
    expectAnswer(await follow(fan, 'not-a-uuid', true), 422, invalid);
    expectAnswer(await unfollow(fan, 'not-a-uuid'), 422, invalid);
    expectAnswer(await rest.get('/follow/status/not-a-uuid', { token: fan.token }), 422, invalid);
  });

  it('validates the optional paging of the following list', async () => {
    const fan = await t.seed.user();
    expectAnswer(await following(fan, { limit: 0 }), 422, {
      errors: { limit: 'VALIDATION_LIMIT_TOO_SMALL' },
    });
    expectAnswer(await following(fan, { limit: 101 }), 422, {
      errors: { limit: 'VALIDATION_LIMIT_TOO_LARGE' },
    });
    expectAnswer(await following(fan, { skip: -1 }), 422, {
      errors: { skip: 'VALIDATION_SKIP_TOO_SMALL' },
    });
  });
});
