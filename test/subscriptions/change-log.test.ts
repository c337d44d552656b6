import { Client } from 'pg';
import { ChangeLogStore, compareCursors as compare } from '../../src/platform/live/change-log';
import {
  useLiveClients,
  waitForSettledChanges,
  waitForSubscriptions,
} from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app';

/*
 * The change log behind live events (issue 26): every event has a cursor; a subscriber that was
 * away resumes after its last cursor and gets exactly what it missed, in order, then live events;
 * the same events page through a query; a transaction that logged a change first and commits
 * last is not skipped (the outbox gap); a cursor older than the log keeps is refused. Runs on
 * the embedded database and on the PostgreSQL server, over two instances.
 */

const MEETING_EVENTS = `subscription ($meetingId: UUID!, $after: String) {
  meetingEvents(meetingId: $meetingId, after: $after) { cursor kind meeting { id title } }
}`;
const MY_EVENTS = `subscription ($after: String) {
  myMeetingEvents(after: $after) { cursor kind meeting { id title } }
}`;
const EVENTS_PAGE = `query ($after: String, $first: Int) {
  myMeetingEvents(after: $after, first: $first) {
    edges { cursor node { cursor kind meeting { id title } } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;

type Event = { cursor: string; kind: string; meeting: { id: string; title: string } };
type MeetingEvents = { meetingEvents: Event };
type MyEvents = { myMeetingEvents: Event };
type Page = {
  myMeetingEvents: {
    edges: Array<{ cursor: string; node: Event }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};

describe('the change log behind live events', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  let outsider: SeededUser;
  const connect = useLiveClients();

  beforeAll(async () => {
    a = await startTestApp();
    b = await startSecondInstance(a);
    [owner, guest, outsider] = (await a.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const rename = (meetingId: string, title: string) =>
    a.gql.data(UPDATE, { input: { meetingId, title } }, owner.token);
  const titles = (events: Event[]) => events.map((event) => event.meeting.title);

  it('begins after every change committed before it, while a transaction elsewhere on the server holds the horizon back', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    await waitForSettledChanges(a.instance);
    // A transaction with an id, open on the server: no change committed after it began is
    // settled until it ends (another database's would do the same; this one is the test's).
    const holder = new Client({ connectionString: a.instance.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select pg_current_xact_id()');
      await rename(meeting.id, 'Before the subscription');
      const events = connect(a.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
        meetingId: meeting.id,
      });
      await waitForSubscriptions(a.instance, 1);
      await rename(meeting.id, 'After the subscription');
      await holder.query('commit');
      const [first] = await events.received(1);
      expect((first?.data as MeetingEvents).meetingEvents).toMatchObject({
        kind: 'UPDATED',
        meeting: { title: 'After the subscription' },
      });
      events.dispose();
    } finally {
      await holder.end();
    }
  });

  it('resumes after the last cursor: exactly the 20 events missed, in order, then live ones', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const first = connect(b.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
      meetingId: meeting.id,
    });
    await waitForSubscriptions(b.instance, 1);
    await rename(meeting.id, 'Before the break');
    // The creation's own events may come first, if the feed had not delivered them yet.
    const seenTitle = () =>
      first.results.some(
        (result) => (result.data as MeetingEvents).meetingEvents.kind === 'UPDATED',
      );
    for (let tries = 0; tries < 50 && !seenTitle(); tries += 1) {
      await first.received(first.results.length + 1, 100);
    }
    const last = (first.results.at(-1)?.data as MeetingEvents).meetingEvents;
    expect(last.kind).toBe('UPDATED');
    expect(last.meeting.title).toBe('Before the break');
    expect(last.cursor).toMatch(/^\d+\.\d+$/);
    first.dispose();

    // Away: 20 edits, each its own event.
    for (let i = 1; i <= 20; i += 1) {
      await rename(meeting.id, `Missed edit ${String(i).padStart(2, '0')}`);
    }
    const resumed = connect(b.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
      meetingId: meeting.id,
      after: last.cursor,
    });
    const replayed = (await resumed.received(20, 5_000)).map(
      (result) => (result.data as MeetingEvents).meetingEvents,
    );
    expect(replayed).toHaveLength(20);
    // The meeting as it is now, for every replayed event (visibility and content at delivery).
    expect(new Set(titles(replayed))).toEqual(new Set(['Missed edit 20']));
    expect(replayed.every((event) => event.kind === 'UPDATED')).toBe(true);
    const cursors = replayed.map((event) => event.cursor);
    expect(new Set(cursors).size).toBe(20);
    expect([...cursors].sort(compare)).toEqual(cursors);
    expect(compare(last.cursor, cursors[0] as string)).toBeLessThan(0);

    await waitForSubscriptions(b.instance, 1);
    await rename(meeting.id, 'Live again');
    const all = (await resumed.received(21, 5_000)).map(
      (result) => (result.data as MeetingEvents).meetingEvents,
    );
    expect(all).toHaveLength(21);
    expect(all[20]?.meeting.title).toBe('Live again');
    expect(compare(cursors[19] as string, all[20]?.cursor as string)).toBeLessThan(0);
    resumed.dispose();
  });

  it('pages through the caller’s events by query, the same ones in the same order as the subscription replays', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const hidden = await a.seed.meeting(outsider).inviting(owner).create();
    const start = connect(a.url, guest.token).subscribe<MyEvents>(MY_EVENTS, {});
    await waitForSubscriptions(a.instance, 1);
    await rename(meeting.id, 'Page marker');
    const [marker] = await start.received(1);
    const from = (marker?.data as MyEvents).myMeetingEvents.cursor;
    start.dispose();
    for (let i = 1; i <= 7; i += 1) {
      await rename(meeting.id, `Paged ${i}`);
      // The outsider's own meeting: never the guest's event.
      await a.gql.data(
        UPDATE,
        { input: { meetingId: hidden.id, title: `Hidden ${i}` } },
        outsider.token,
      );
    }
    // A page ends where the changes are settled: until then, a transaction of another database
    // on the server (another test file's) may hold some of them back.
    await waitForSettledChanges(a.instance);
    const paged: Event[] = [];
    let after: string | null = from;
    for (let pages = 0; pages < 10; pages += 1) {
      const page: Page = await b.gql.data<Page>(EVENTS_PAGE, { after, first: 3 }, guest.token);
      paged.push(...page.myMeetingEvents.edges.map((edge) => edge.node));
      after = page.myMeetingEvents.pageInfo.endCursor;
      if (!page.myMeetingEvents.pageInfo.hasNextPage) {
        break;
      }
    }
    expect(paged).toHaveLength(7);
    expect(paged.every((event) => event.meeting.id === meeting.id)).toBe(true);

    const replay = connect(b.url, guest.token).subscribe<MyEvents>(MY_EVENTS, { after: from });
    const replayed = (await replay.received(7, 5_000)).map(
      (result) => (result.data as MyEvents).myMeetingEvents,
    );
    expect(replayed.map((event) => event.cursor)).toEqual(paged.map((event) => event.cursor));
    replay.dispose();
  });

  it('does not skip a change whose transaction logged it first and committed last (the outbox gap)', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const events = connect(b.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
      meetingId: meeting.id,
    });
    await waitForSubscriptions(b.instance, 1);
    // Live from here: the marker is heard (the creation's own events may or may not have been).
    await rename(meeting.id, 'Marker');
    await events.received(1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = events.results.length;
    // A slow writer: takes its transaction id and its log position, then commits last.
    const slow = new Client({ connectionString: a.instance.database.url });
    await slow.connect();
    try {
      await slow.query('begin');
      await slow.query(
        `insert into change_log (kind, subject_type, subject_id, scope_id, occurred_at) ` +
          `values ('UPDATED', 'meeting', $1, $1, now())`,
        [meeting.id],
      );
      // Meanwhile, five writers commit, concurrently.
      await Promise.all([1, 2, 3, 4, 5].map((i) => rename(meeting.id, `Concurrent ${i}`)));
      // Held back behind the slow writer's transaction, not delivered past it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(events.results).toHaveLength(before);
      await slow.query('commit');
    } finally {
      await slow.end();
    }
    const delivered = (await events.received(before + 6, 5_000))
      .slice(before)
      .map((result) => (result.data as MeetingEvents).meetingEvents);
    expect(delivered).toHaveLength(6);
    const cursors = delivered.map((event) => event.cursor);
    expect([...cursors].sort(compare)).toEqual(cursors);
    expect(new Set(cursors).size).toBe(6);
    events.dispose();
  });

  it('logs verification requests, follows and profile edits too, which no meeting subscriber receives', async () => {
    const [fan, star] = (await a.seed.users(2)) as [SeededUser, SeededUser];
    const mine = connect(a.url, star.token).subscribe<MyEvents>(MY_EVENTS, {});
    await waitForSubscriptions(a.instance, 1);
    const rest = (path: string, token: string) =>
      fetch(`${a.url}/api/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await rest(`/follow/follow/${star.id}`, fan.token)).status).toBe(200);
    // Following again changes nothing, and logs nothing.
    expect((await rest(`/follow/follow/${star.id}`, fan.token)).status).toBe(200);
    expect((await rest(`/follow/unfollow/${star.id}`, fan.token)).status).toBe(200);
    await a.gql.data(
      'mutation ($input: UpdateProfileInput!) { updateProfile(input: $input) { user { id } } }',
      { input: { name: 'Star Renamed' } },
      star.token,
    );
    const admin = new Client({ connectionString: a.instance.database.url });
    await admin.connect();
    try {
      const rows = await admin.query<{
        kind: string;
        subject_type: string;
        subject_id: string;
        scope_id: string | null;
        actor_id: string;
      }>(
        `select kind, subject_type, subject_id, scope_id, actor_id from change_log ` +
          `where subject_id = $1 or actor_id = $1 order by tx, position`,
        [star.id],
      );
      const of = (kind: string, actorId: string) => ({
        kind,
        subject_type: 'user',
        subject_id: star.id,
        scope_id: null,
        actor_id: actorId,
      });
      expect(rows.rows).toEqual([
        // Registering asks for the address to be verified (a message the mail module sends).
        of('EMAIL_VERIFICATION_REQUESTED', star.id),
        of('USER_FOLLOWED', fan.id),
        of('USER_UNFOLLOWED', fan.id),
        of('PROFILE_UPDATED', star.id),
      ]);
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mine.results).toHaveLength(0);
    mine.dispose();
  });

  it('refuses a cursor older than the log keeps: CURSOR_EXPIRED, by subscription and by query', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const events = connect(a.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
      meetingId: meeting.id,
    });
    await waitForSubscriptions(a.instance, 1);
    await rename(meeting.id, 'Soon forgotten');
    const [first] = await events.received(1);
    const old = (first?.data as MeetingEvents).meetingEvents.cursor;
    events.dispose();
    await rename(meeting.id, 'Also forgotten');
    // Everything logged so far is past its retention, once settled (only settled changes go).
    await waitForSettledChanges(a.instance);
    const pruned = await new ChangeLogStore(a.instance.database.orm.em.fork()).prune(
      new Date(Date.now() + 60_000),
    );
    expect(pruned).toBeGreaterThanOrEqual(2);

    const refused = connect(a.url, guest.token).subscribe<MeetingEvents>(MEETING_EVENTS, {
      meetingId: meeting.id,
      after: old,
    });
    const [answer] = await refused.finished(3_000);
    expect(answer?.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'CURSOR_EXPIRED',
    });
    const byQuery = await a.gql.error(EVENTS_PAGE, { after: old, first: 5 }, guest.token);
    expect(byQuery.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'CURSOR_EXPIRED',
    });
    const malformed = await a.gql.error(EVENTS_PAGE, { after: 'not-a-cursor' }, guest.token);
    expect(malformed.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});
