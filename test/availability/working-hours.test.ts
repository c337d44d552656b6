import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

interface Period {
  weekday: string;
  start: string;
  end: string;
}

const UPDATE = `mutation ($input: UpdateProfileInput!) {
  updateProfile(input: $input) { user { id workingHours { weekday start end } } }
}`;
const USER = `query ($account: String!) { user(account: $account) { id workingHours { weekday start end } } }`;
const SHARE = `mutation ($share: Boolean!) { updateProfile(input: { shareAvailability: $share }) { user { id } } }`;

const DEFAULT_WEEK: Period[] = ['MO', 'TU', 'WE', 'TH', 'FR'].map((weekday) => ({
  weekday,
  start: '09:00',
  end: '17:00',
}));

describe("a user's working hours", () => {
  const t = useTestApp();

  const update = (user: SeededUser, workingHours: Period[] | null) =>
    t.gql.request<{ updateProfile: { user: { workingHours: Period[] | null } } }>(
      UPDATE,
      { input: { workingHours } },
      user.token,
    );
  const seen = async (viewer: SeededUser, user: SeededUser) =>
    (
      await t.gql.data<{ user: { workingHours: Period[] | null } }>(
        USER,
        { account: user.account },
        viewer.token,
      )
    ).user.workingHours;

  it('are Monday to Friday, 09:00 to 17:00, until the user sets them', async () => {
    const [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    expect(await seen(ada, ada)).toEqual(DEFAULT_WEEK);
    expect(await seen(ben, ada)).toEqual(DEFAULT_WEEK);
  });

  it('are set by updateProfile, several a day, answered by day then start', async () => {
    const [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    const week = [
      { weekday: 'TU', start: '13:00', end: '18:30' },
      { weekday: 'MO', start: '08:00', end: '12:00' },
      { weekday: 'TU', start: '08:00', end: '12:00' },
      { weekday: 'SU', start: '20:00', end: '24:00' },
    ];
    const result = await update(ada, week);
    expect(result.errors).toBeUndefined();
    const sorted = [week[1], week[2], week[0], week[3]];
    expect(result.data?.updateProfile.user.workingHours).toEqual(sorted);
    expect(await seen(ben, ada)).toEqual(sorted);
    // Left out, they stay; an empty week is a week without working hours; null is the default.
    await t.gql.data(UPDATE, { input: { bio: 'Works odd hours.' } }, ada.token);
    expect(await seen(ada, ada)).toEqual(sorted);
    expect((await update(ada, [])).data?.updateProfile.user.workingHours).toEqual([]);
    expect((await update(ada, null)).data?.updateProfile.user.workingHours).toEqual(DEFAULT_WEEK);
  });

  it('are null to others when the user does not share their availability', async () => {
    const [ada, ben] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    await t.gql.data(SHARE, { share: false }, ada.token);
    expect(await seen(ben, ada)).toBeNull();
    expect(await seen(ada, ada)).toEqual(DEFAULT_WEEK);
  });

  it('refuses a period that ends before it starts, bad times, days and too many periods', async () => {
    const [ada] = (await t.seed.users(1)) as [SeededUser];
    const refused = await update(ada, [
      { weekday: 'MO', start: '17:00', end: '09:00' },
      { weekday: 'TU', start: '9am', end: '17:00' },
      { weekday: 'WE', start: '10:00', end: '10:00' },
      { weekday: 'TH', start: '09:00', end: '24:30' },
    ]);
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: {
        'workingHours.0.end': 'TOO_SMALL',
        'workingHours.1.start': 'INVALID_FORMAT',
        'workingHours.2.end': 'TOO_SMALL',
        'workingHours.3.end': 'INVALID_FORMAT',
      },
    });
    const badDay = await t.gql.request(
      `mutation { updateProfile(input: { workingHours: [{ weekday: XX, start: "09:00", end: "10:00" }] }) { user { id } } }`,
      {},
      ada.token,
    );
    expect(badDay.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const many = Array.from({ length: 29 }, () => ({
      weekday: 'MO',
      start: '09:00',
      end: '10:00',
    }));
    expect((await update(ada, many)).errors?.[0]?.extensions).toMatchObject({
      fields: { workingHours: 'TOO_LONG' },
    });
    // Nothing refused was stored.
    expect(await seen(ada, ada)).toEqual(DEFAULT_WEEK);
  });
});
