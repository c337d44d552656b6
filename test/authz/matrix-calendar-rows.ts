import { createHash } from 'node:crypto';
import { CalendarFeed } from '../../src/modules/calendar/calendar.entity';
import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { allowed, type Capability, forMembers } from './matrix-capability';

/*
 * The authorization matrix's rows for calendar feeds (issue 28), GraphQL only. A feed is the
 * caller's own: every signed-in caller may make, see and end theirs (an admin too, theirs only),
 * the anonymous one none. The documents themselves are HTTP routes outside the REST table
 * (test/calendar/).
 */

const CREATE_FEED = 'mutation { createCalendarFeed { feed { url createdAt } } }';

/** The feed row of a user, if any. */
function feedOf(t: TestApp, user: SeededUser | null) {
  return t.instance.database.orm.em.fork().findOne(CalendarFeed, { userId: user?.id ?? '' });
}

/** Gives the caller (not the anonymous one) a feed before the call. */
async function withFeed(t: TestApp, user: SeededUser | null): Promise<void> {
  if (user) {
    await t.gql.data(CREATE_FEED, {}, user.token);
  }
}

export const calendarCapabilities: Capability[] = [
  {
    action: 'make their calendar feed (a new secret each time)',
    rest: [],
    graphql: { operation: 'mutation', field: 'createCalendarFeed' },
    restCall: () => ({}),
    graphqlCall: () => ({ query: CREATE_FEED }),
    outcomes: forMembers(
      allowed(200, async ({ root, user, scene }) => {
        const feed = root['feed'] as { url: string; createdAt: string };
        const secret = /\/calendar\/(cal_[0-9a-f]{64})\.ics$/.exec(feed.url)?.[1] ?? '';
        const stored = await feedOf(scene.world.t, user);
        expect(stored?.secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
        expect(stored?.createdAt.toISOString()).toBe(feed.createdAt);
      }),
    ),
  },
  {
    action: 'see their calendar feed (never its address again)',
    rest: [],
    graphql: { operation: 'query', field: 'calendarFeed' },
    restCall: () => ({}),
    graphqlCall: async (s, user) => {
      await withFeed(s.world.t, user);
      return { query: 'query { calendarFeed { url createdAt } }' };
    },
    outcomes: forMembers(
      allowed(200, async ({ root, user, scene }) => {
        const stored = await feedOf(scene.world.t, user);
        expect(root).toEqual({ url: null, createdAt: stored?.createdAt.toISOString() });
      }),
    ),
  },
  {
    action: 'end their calendar feed',
    rest: [],
    graphql: { operation: 'mutation', field: 'revokeCalendarFeed' },
    restCall: () => ({}),
    graphqlCall: async (s, user) => {
      await withFeed(s.world.t, user);
      return { query: 'mutation { revokeCalendarFeed { revoked } }' };
    },
    outcomes: forMembers(
      allowed(200, async ({ root, user, scene }) => {
        expect(root).toEqual({ revoked: true });
        expect(await feedOf(scene.world.t, user)).toBeNull();
      }),
    ),
  },
];
