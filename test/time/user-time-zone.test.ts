import { USER_PUBLIC_KEYS } from '../rest/rest-fixtures';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const SET_ZONE = `mutation ($zone: String) {
  updateProfile(input: { timeZone: $zone }) { user { timeZone } }
}`;
const ZONE_OF = `query ($id: ID!) { node(id: $id) { ... on User { timeZone } } }`;

describe("a user's time zone", () => {
  const t = useTestApp();
  const { rest } = t;
  let user: SeededUser;
  let other: SeededUser;

  beforeAll(async () => {
    [user, other] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  const zoneOf = async (who: SeededUser): Promise<string> => {
    const data = await t.gql.data<{ me: { timeZone: string } }>(
      '{ me { timeZone } }',
      {},
      who.token,
    );
    return data.me.timeZone;
  };

  it('is UTC until the user sets one', async () => {
    expect(await zoneOf(user)).toBe('UTC');
  });

  it('is set by updateProfile, spelled as the zone database spells it', async () => {
    const data = await t.gql.data<{ updateProfile: { user: { timeZone: string } } }>(
      SET_ZONE,
      { zone: 'europe/berlin' },
      user.token,
    );
    expect(data.updateProfile.user.timeZone).toBe('Europe/Berlin');
    expect(await zoneOf(user)).toBe('Europe/Berlin');
  });

  it('refuses a zone it does not know, and keeps the one it had', async () => {
    for (const zone of ['Mars/Olympus_Mons', '+01:00', 'x'.repeat(65)]) {
      const error = await t.gql.error(SET_ZONE, { zone }, user.token);
      expect(error.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: { timeZone: 'INVALID_TIME_ZONE' },
      });
    }
    expect(await zoneOf(user)).toBe('Europe/Berlin');
  });

  it('leaves the zone alone when an update names none, and goes back to UTC on null', async () => {
    await t.gql.data(
      'mutation { updateProfile(input: { bio: "Plans meetings" }) { user { id } } }',
      {},
      user.token,
    );
    expect(await zoneOf(user)).toBe('Europe/Berlin');
    await t.gql.data(SET_ZONE, { zone: null }, user.token);
    expect(await zoneOf(user)).toBe('UTC');
  });

  it('is one user’s own: setting it changes nobody else’s, and others read it', async () => {
    await t.gql.data(SET_ZONE, { zone: 'America/New_York' }, user.token);
    expect(await zoneOf(other)).toBe('UTC');
    const read = await t.gql.data<{ node: { timeZone: string } }>(
      ZONE_OF,
      { id: user.id },
      other.token,
    );
    expect(read.node.timeZone).toBe('America/New_York');
  });

  it('stays off the REST wire', async () => {
    const me = await rest.get<Record<string, unknown>>('/user/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(Object.keys(me.body).sort()).toEqual([...USER_PUBLIC_KEYS].sort());
  });
});
