import { useTestApp } from '../helpers/use-test-app';
import type { SeededUser } from '../helpers/seed';

const UPDATE_PROFILE = `mutation ($input: UpdateProfileInput!) { updateProfile(input: $input) { user { id } } }`;
const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const APPROVE = `mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }`;

/**
 * Conditional reads (RFC 9110 §13.1.2): every REST GET and every GraphQL query sent by GET answers
 * with a strong ETag of what it shows; a client that sends it back in If-None-Match is answered
 * 304 without a body while nothing it shows has changed, and the new answer once something has.
 */
describe.each(['off', 'on'])('conditional reads (RESPONSE_CACHE=%s)', (cache) => {
  const t = useTestApp({ RESPONSE_CACHE: cache });
  let owner: SeededUser;
  let guest: SeededUser;
  let meetingId: string;

  beforeAll(async () => {
    owner = await t.seed.user({ name: 'Conditional Owner' });
    guest = await t.seed.user({ name: 'Conditional Guest' });
    meetingId = (await t.seed.meeting(owner).titled('Etag review').inviting(guest).create()).id;
  });

  /** A REST GET as a client that remembers ETags makes it. */
  const read = (path: string, token: string, etag?: string, query?: Record<string, string>) =>
    t.rest.request('GET', path, undefined, {
      token,
      query,
      headers: etag ? { 'if-none-match': etag } : {},
    });

  /**
   * Reads `path`, checks that sending its ETag back is answered 304 with no body, makes `change`,
   * then checks that the same ETag is answered 200 with the new body and a new ETag.
   */
  async function changesWith(
    path: string,
    token: string,
    change: () => Promise<unknown>,
    query?: Record<string, string>,
  ): Promise<void> {
    const first = await read(path, token, undefined, query);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const unchanged = await read(path, token, etag, query);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    await change();
    const changed = await read(path, token, etag, query);
    expect(changed.status).toBe(200);
    expect(changed.text).not.toBe(first.text);
    expect(changed.headers.get('etag')).not.toBe(etag);
    // Without a condition: the same bytes, the same tag.
    const plain = await read(path, token, undefined, query);
    expect(plain.text).toBe(changed.text);
    expect(plain.headers.get('etag')).toBe(changed.headers.get('etag'));
  }

  const profile = (user: SeededUser, input: Record<string, unknown>) => () =>
    t.gql.data(UPDATE_PROFILE, { input }, user.token);

  it('GET /user/me: the profile edited', async () => {
    await changesWith('/user/me', owner.token, profile(owner, { bio: 'Keeps ETags' }));
  });

  it('GET /user/:account: the profile edited', async () => {
    await changesWith(
      `/user/${guest.account}`,
      owner.token,
      profile(guest, { name: 'Conditional Guest Renamed' }),
    );
  });

  it('GET /user/search: a new user who matches', async () => {
    await changesWith('/user/search', owner.token, () => t.seed.user({ name: 'Etagsearch One' }), {
      q: 'Etagsearch',
    });
  });

  it('GET /follow/following, /follow/followers and /follow/status: a follow', async () => {
    const [a, b, c, d] = await t.seed.users(4);
    if (!a || !b || !c || !d) {
      throw new Error('four users');
    }
    const follow = (who: SeededUser, whom: SeededUser) => () =>
      t.rest.request('POST', `/follow/follow/${whom.id}`, undefined, { token: who.token });
    await changesWith('/follow/following', a.token, follow(a, b));
    await changesWith('/follow/followers', b.token, follow(c, b));
    await changesWith(`/follow/status/${d.id}`, a.token, follow(a, d));
  });

  it('GET /meeting/:id: its details, a participant answering, a participant renamed', async () => {
    const path = `/meeting/${meetingId}`;
    await changesWith(path, owner.token, () =>
      t.gql.data(UPDATE_MEETING, { input: { meetingId, title: 'Etag review 2' } }, owner.token),
    );
    await changesWith(path, owner.token, () => t.gql.data(APPROVE, { id: meetingId }, guest.token));
    await changesWith(path, owner.token, profile(guest, { name: 'Conditional Guest Third' }));
  });

  it('GET /meeting/index and /meeting/requests: a new meeting, a new invitation', async () => {
    await changesWith('/meeting/index', owner.token, () =>
      t.seed.meeting(owner).titled('Etag index').inviting(guest).create(),
    );
    await changesWith('/meeting/requests', guest.token, () =>
      t.seed.meeting(owner).titled('Etag request').inviting(guest).create(),
    );
  });

  it('answers 304 to any tag of a list that names it, or to *, and 200 to others', async () => {
    const first = await read('/user/me', guest.token);
    const etag = first.headers.get('etag') ?? '';
    expect((await read('/user/me', guest.token, `"other", ${etag}`)).status).toBe(304);
    expect((await read('/user/me', guest.token, `W/${etag}`)).status).toBe(304);
    expect((await read('/user/me', guest.token, '*')).status).toBe(304);
    const other = await read('/user/me', guest.token, '"other"');
    expect(other.status).toBe(200);
    expect(other.text).toBe(first.text);
  });

  it('tags answers by their bytes: two callers shown the same record share its tag', async () => {
    const byOwner = await read(`/user/${guest.account}`, owner.token);
    const byGuest = await read(`/user/${guest.account}`, guest.token);
    expect(byGuest.text).toBe(byOwner.text);
    expect(byGuest.headers.get('etag')).toBe(byOwner.headers.get('etag'));
  });

  it('leaves errors and writes without a tag, and never answers them 304', async () => {
    const missing = await read('/meeting/00000000-0000-4000-8000-000000000000', owner.token, '*');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    const anonymous = await read('/user/me', '', '*');
    expect(anonymous.status).toBe(401);
    const follow = await t.rest.request('POST', `/follow/follow/${owner.id}`, undefined, {
      token: guest.token,
      headers: { 'if-none-match': '*' },
    });
    expect(follow.status).toBe(200);
    expect(follow.headers.get('etag')).toBeNull();
  });

  describe('GraphQL by GET', () => {
    const query = `query ($id: UUID!) { meeting(meetingId: $id) { title participants { status user { name } } } }`;
    const get = (token: string, etag?: string) =>
      fetch(
        `${t.url}/graphql?query=${encodeURIComponent(query)}` +
          `&variables=${encodeURIComponent(JSON.stringify({ id: meetingId }))}`,
        {
          headers: {
            authorization: `Bearer ${token}`,
            'apollo-require-preflight': 'true',
            ...(etag ? { 'if-none-match': etag } : {}),
          },
        },
      );

    it('answers with a strong ETag, 304 while unchanged, the new answer once changed', async () => {
      const first = await get(owner.token);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const body = await first.text();
      const unchanged = await get(owner.token, etag);
      expect(unchanged.status).toBe(304);
      expect(await unchanged.text()).toBe('');
      await t.gql.data(UPDATE_MEETING, { input: { meetingId, title: 'Etag by GET' } }, owner.token);
      const changed = await get(owner.token, etag);
      expect(changed.status).toBe(200);
      const text = await changed.text();
      expect(text).not.toBe(body);
      expect(JSON.parse(text)).toMatchObject({ data: { meeting: { title: 'Etag by GET' } } });
      expect(changed.headers.get('etag')).not.toBe(etag);
    });

    it('tags no POST and no refused GET', async () => {
      const posted = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'content-type': 'application/json',
          'if-none-match': '*',
        },
        body: JSON.stringify({ query, variables: { id: meetingId } }),
      });
      expect(posted.status).toBe(200);
      expect(posted.headers.get('etag')).toBeNull();
      const refused = await fetch(`${t.url}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { 'if-none-match': '*' },
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('etag')).toBeNull();
    });
  });
});
