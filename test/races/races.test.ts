import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** One REST answer: status and parsed body. */
interface Answer {
  status: number;
  body: unknown;
}

/** How many of each `status code` a burst of answers had, e.g. `{ "409 USER_ALREADY_A_PARTICIPANT": 19 }`. */
function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, body } of answers) {
    const code = (body as { errors?: unknown } | null)?.errors;
    const key = typeof code === 'string' ? `${status} ${code}` : String(status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * Many REST requests at once against the same rows: every race has exactly the outcome the
 * sequential rules give (one winner, the others a 409), the database holds exactly the rows it
 * should, and nothing answers 5xx.
 */
describe('concurrent requests through the REST facade', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guests: SeededUser[];
  let round = 0;

  const rest = async (
    method: 'GET' | 'POST',
    path: string,
    options: { token?: string; json?: unknown } = {},
  ): Promise<Answer> => {
    const response = await fetch(`${t.url}/api/v1${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  /** Runs `count` copies of a request at the same moment. */
  const burst = (count: number, send: (index: number) => Promise<Answer>): Promise<Answer[]> =>
    Promise.all(Array.from({ length: count }, (_, index) => send(index)));

  const sql = async (query: string, params: unknown[]): Promise<Array<Record<string, unknown>>> =>
    t.instance.database.orm.em.fork().getConnection().execute(query, params);

  const count = async (query: string, params: unknown[]): Promise<number> =>
    Number((await sql(query, params))[0]?.['n']);

  beforeAll(async () => {
    t = await startTestApp();
    [owner, ...guests] = (await t.seed.users(16)) as [SeededUser, ...SeededUser[]];
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  const unique = (): string => `${Date.now().toString(36)}${(round += 1)}`;

  it.each([1, 2, 3])(
    'adds a user once when the owner adds them 20 times at once (round %i): one 200, nineteen 409s, one row',
    async (n) => {
      const meeting = await t.seed.meeting(owner).inviting(guests[0]!).create();
      const newcomer = guests[n]!;
      const answers = await burst(20, () =>
        rest('POST', `/meeting/${meeting.id}/participants/add`, {
          token: owner.token,
          json: { user_id: newcomer.id },
        }),
      );
      expect(tally(answers)).toEqual({ '200': 1, '409 USER_ALREADY_A_PARTICIPANT': 19 });
      expect(
        await count(
          'select count(*)::int as n from participants where meeting_id = ? and user_id = ?',
          [meeting.id, newcomer.id],
        ),
      ).toBe(1);
    },
  );

  it('adds every user when the owner adds 15 different users at once: fifteen 200s, fifteen rows', async () => {
    const meeting = await t.seed.meeting(owner).inviting(guests[0]!).create();
    const newcomers = guests.slice(1, 16);
    const answers = await burst(newcomers.length, (index) =>
      rest('POST', `/meeting/${meeting.id}/participants/add`, {
        token: owner.token,
        json: { user_id: newcomers[index]!.id },
      }),
    );
    expect(tally(answers)).toEqual({ '200': newcomers.length });
    expect(
      await count('select count(*)::int as n from participants where meeting_id = ?', [meeting.id]),
    ).toBe(newcomers.length + 2);
  });

  it.each([1, 2])(
    'confirms the meeting when all 15 guests approve at once (round %i)',
    async () => {
      const meeting = await t.seed
        .meeting(owner)
        .inviting(...guests)
        .create();
      const answers = await burst(guests.length, (index) =>
        rest('POST', `/meeting/${meeting.id}/approve`, { token: guests[index]!.token }),
      );
      expect(tally(answers)).toEqual({ '200': guests.length });
      const [row] = await sql('select status::text as status from meetings where id = ?', [
        meeting.id,
      ]);
      expect(row?.['status']).toBe('confirmed');
      expect(
        await sql(
          'select status::text as status, count(*)::int as n from participants where meeting_id = ? group by status',
          [meeting.id],
        ),
      ).toEqual([{ status: 'accepted', n: guests.length + 1 }]);
      const seen = await rest('GET', `/meeting/${meeting.id}`, { token: owner.token });
      expect(seen.body).toMatchObject({ status: 'confirmed' });
    },
  );

  it.each([1, 2])('cancels the meeting when all 15 guests decline at once (round %i)', async () => {
    const meeting = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();
    const answers = await burst(guests.length, (index) =>
      rest('POST', `/meeting/${meeting.id}/decline`, { token: guests[index]!.token }),
    );
    expect(tally(answers)).toEqual({ '200': guests.length });
    const [row] = await sql('select status::text as status from meetings where id = ?', [
      meeting.id,
    ]);
    expect(row?.['status']).toBe('cancelled');
    expect(
      await sql(
        'select status::text as status, count(*)::int as n from participants where meeting_id = ? group by status order by status',
        [meeting.id],
      ),
    ).toEqual([
      { status: 'accepted', n: 1 },
      { status: 'declined', n: guests.length },
    ]);
  });

  it('ends in the status the answers call for when guests approve and decline at once', async () => {
    const meeting = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();
    const answers = await burst(guests.length, (index) =>
      rest('POST', `/meeting/${meeting.id}/${index % 2 === 0 ? 'approve' : 'decline'}`, {
        token: guests[index]!.token,
      }),
    );
    expect(tally(answers)).toEqual({ '200': guests.length });
    const [row] = await sql('select status::text as status from meetings where id = ?', [
      meeting.id,
    ]);
    // Some accepted and some declined: neither everyone accepted nor every guest declined.
    expect(row?.['status']).toBe('pending');
    expect(
      await count(
        "select count(*)::int as n from participants where meeting_id = ? and status = 'new'",
        [meeting.id],
      ),
    ).toBe(0);
  });

  it.each([1, 2])(
    'registers an email once when it is sent 20 times at once (round %i): one 201, nineteen 409s, one row',
    async () => {
      const tag = unique();
      const email = `race${tag}@example.com`;
      const answers = await burst(20, (index) =>
        rest('POST', '/auth/register', {
          json: {
            name: `Racing User ${index}`,
            account: `race${tag}${index}`,
            email: index % 2 === 0 ? email : email.toUpperCase(),
            password: 'correct horse battery',
            password_confirm: 'correct horse battery',
          },
        }),
      );
      expect(tally(answers)).toEqual({ '201': 1, '409 EMAIL_ALREADY_REGISTERED': 19 });
      expect(await count('select count(*)::int as n from users where email = ?', [email])).toBe(1);
      expect(
        await count('select count(*)::int as n from users where account like ?', [`race${tag}%`]),
      ).toBe(1);
    },
  );

  it.each([1, 2])(
    'registers an account name once when it is sent 20 times at once with different emails (round %i)',
    async () => {
      const account = `acct${unique()}`;
      const answers = await burst(20, (index) =>
        rest('POST', '/auth/register', {
          json: {
            name: `Racing User ${index}`,
            account: index % 2 === 0 ? account : account.toUpperCase(),
            email: `${account}.${index}@example.com`,
            password: 'correct horse battery',
            password_confirm: 'correct horse battery',
          },
        }),
      );
      expect(tally(answers)).toEqual({ '201': 1, '409 ACCOUNT_NAME_ALREADY_TAKEN': 19 });
      expect(await count('select count(*)::int as n from users where account = ?', [account])).toBe(
        1,
      );
      expect(
        await count('select count(*)::int as n from users where email like ?', [`${account}.%`]),
      ).toBe(1);
    },
  );

  it('keeps one follow row when a user follows the same user 20 times at once, all answered 200', async () => {
    const [follower, followed] = [guests[10]!, guests[11]!];
    const answers = await burst(20, (index) =>
      rest(
        'POST',
        index % 2 === 0 ? `/follow/follow/${followed.id}` : `/follow/${followed.id}/add`,
        {
          token: follower.token,
        },
      ),
    );
    expect(tally(answers)).toEqual({ '200': 20 });
    expect(
      await count(
        'select count(*)::int as n from follows where follower_id = ? and following_id = ?',
        [follower.id, followed.id],
      ),
    ).toBe(1);
    const status = await rest('GET', `/follow/status/${followed.id}`, { token: follower.token });
    expect(status).toEqual({
      status: 200,
      body: { is_following: true, is_followed_by: false, is_mutual: false },
    });
  });

  it.each([1, 2, 3])(
    'ends consistent when follows and unfollows of the same user interleave (round %i): all 200, 0 or 1 row, status agrees',
    async (n) => {
      const [follower, followed] = [guests[9]!, guests[11 + n]!];
      const answers = await burst(20, (index) =>
        rest(
          'POST',
          index % 2 === 0 ? `/follow/follow/${followed.id}` : `/follow/unfollow/${followed.id}`,
          { token: follower.token },
        ),
      );
      expect(tally(answers)).toEqual({ '200': 20 });
      const rows = await count(
        'select count(*)::int as n from follows where follower_id = ? and following_id = ?',
        [follower.id, followed.id],
      );
      expect([0, 1]).toContain(rows);
      const status = await rest('GET', `/follow/status/${followed.id}`, {
        token: follower.token,
      });
      expect(status).toMatchObject({ status: 200, body: { is_following: rows === 1 } });
      const following = await rest('GET', '/follow/following', { token: follower.token });
      expect((following.body as { count: number }).count).toBe(
        await count('select count(*)::int as n from follows where follower_id = ?', [follower.id]),
      );
    },
  );
});
