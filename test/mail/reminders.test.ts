import { verifiedUser } from './mail-fixtures';
import { headerOf, type Received, SmtpSink } from './smtp-sink';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createEndpoint, Receiver } from '../webhooks/receiver';
import { LiveClient, type Subscriber, waitForSubscriptions } from '../helpers/live-client';

/*
 * Reminders (issue 40), in real time through a real SMTP server: a meeting's reminder comes
 * within seconds of its time (reminderMinutes before the start) to the owner and to each
 * participant who accepted and is verified, in the reader's zone, with a meeting.reminder
 * webhook; a reschedule replaces it (the old one never comes); a cancelled meeting's never comes;
 * nothing to a user who turned reminders off. Two instances share the database: each reminder
 * is sent, and its event told, once whichever runs its job. The scenarios are booked together at
 * the start, so the file waits about 50 s once.
 */

const RESCHEDULE = `mutation ($input: RescheduleMeetingInput!) {
  rescheduleMeeting(input: $input) { meeting { id } }
}`;
const CANCEL = `mutation ($id: UUID!) { cancelMeeting(input: { meetingId: $id }) { meeting { status } } }`;
const MUTE = `mutation { updateProfile(input: { mailPreferences: { reminders: false } }) { user { id } } }`;
const ZONE = `mutation ($zone: String!) { updateProfile(input: { timeZone: $zone }) { user { id } } }`;

const MY_EVENTS = `subscription { myMeetingEvents { kind meeting { id } } }`;
type MyEvent = { myMeetingEvents: { kind: string; meeting: { id: string } } };

const SECOND = 1_000;
const isReminder = (m: Received) => /^Reminder: /.test(m.parsed.subject ?? '');
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * SECOND).toISOString();

describe('reminders', () => {
  let t: TestApp;
  let second: TestApp;
  let sink: SmtpSink;
  let receiver: Receiver;
  let owner: SeededUser;
  let accepted: SeededUser;
  let unanswered: SeededUser;
  let muted: SeededUser;
  let movedOwner: SeededUser;
  let cancelledOwner: SeededUser;
  let bookedAt: number;
  let start: string;
  let movedTo: string;
  let live: LiveClient;
  let events: Subscriber<MyEvent>;
  const ids: Record<'first' | 'moved' | 'cancelled', string> = {
    first: '',
    moved: '',
    cancelled: '',
  };

  const reminders = (user: SeededUser) => sink.to(user.email).filter(isReminder);

  beforeAll(async () => {
    sink = await SmtpSink.start();
    receiver = await Receiver.start();
    const env = { SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    t = await startTestApp(env);
    second = await startTestApp(env, {
      database: { kind: 'postgres', url: t.instance.database.url, poolSize: 5 },
    });
    [owner, accepted, unanswered, muted, movedOwner, cancelledOwner] = await Promise.all(
      Array.from({ length: 6 }, () => verifiedUser(t)),
    );
    await t.gql.data(ZONE, { zone: 'Asia/Tokyo' }, accepted.token);
    await t.gql.data(MUTE, {}, muted.token);
    await createEndpoint(t, owner, receiver.url, ['meeting.reminder']);
    live = LiveClient.open(t.url, accepted.token);
    events = live.subscribe<MyEvent>(MY_EVENTS);
    await waitForSubscriptions(t.instance, 1);
    const book = (by: SeededUser, startTime: string, guests: Array<[SeededUser, string]>) =>
      t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
        `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
          createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
        }`,
        {
          meeting: { title: 'Standup', location: 'Room 101', startTime, reminderMinutes: [1] },
          participants: guests.map(([guest, status]) => ({ userId: guest.id, status })),
        },
        by.token,
      );
    bookedAt = Date.now();
    // Due a minute before its start: about 40 s from now, after the others.
    start = inSeconds(100);
    ids.first = (
      await book(owner, start, [
        [accepted, 'ACCEPTED'],
        [unanswered, 'NEW'],
        [muted, 'ACCEPTED'],
      ])
    ).createMeeting.meeting.id;
    // Due in about 20 s, moved before that to be due in about 35 s.
    const moved = await book(movedOwner, inSeconds(80), [[accepted, 'NEW']]);
    ids.moved = moved.createMeeting.meeting.id;
    movedTo = inSeconds(95);
    await t.gql.data(
      RESCHEDULE,
      { input: { meetingId: moved.createMeeting.meeting.id, startTime: movedTo } },
      movedOwner.token,
    );
    // Due in about 15 s, cancelled at once.
    const cancelled = await book(cancelledOwner, inSeconds(75), [[accepted, 'NEW']]);
    ids.cancelled = cancelled.createMeeting.meeting.id;
    await t.gql.data(CANCEL, { id: cancelled.createMeeting.meeting.id }, cancelledOwner.token);
  }, 60_000);
  afterAll(async () => {
    await live?.close();
    await second?.close();
    await t?.close();
    await receiver?.close();
    await sink?.close();
  });

  it('replaces the reminder of a rescheduled meeting: the old one never comes, the new one does', async () => {
    const [reminder] = await sink.waitFor(movedOwner.email, 1, 50_000, isReminder);
    const cameAfter = Date.now() - bookedAt;
    expect(cameAfter).toBeGreaterThan(30 * SECOND);
    expect(cameAfter).toBeLessThan(42 * SECOND);
    expect(reminder?.parsed.text).toContain(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'UTC',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(movedTo)),
    );
    expect(reminders(movedOwner)).toHaveLength(1);
  }, 60_000);

  it('reminds the owner and the accepted participant a minute before the start, within 5 s of its time, in the reader’s zone, with a meeting.reminder webhook', async () => {
    const [mine] = await sink.waitFor(owner.email, 1, 55_000, isReminder);
    const cameAfter = Date.now() - bookedAt;
    expect(cameAfter).toBeGreaterThan(30 * SECOND);
    expect(cameAfter).toBeLessThan(45 * SECOND);
    expect(mine?.parsed.subject).toBe('Reminder: Standup in 1 minute');
    expect(mine?.parsed.text).toContain('(UTC)');
    const [theirs] = await sink.waitFor(accepted.email, 1, 10_000, (m) =>
      /^Reminder: Standup in 1 minute$/.test(m.parsed.subject ?? ''),
    );
    expect(theirs?.parsed.text).toContain('(Asia/Tokyo)');
    expect(headerOf(theirs as Received, 'List-Unsubscribe')).toMatch(/\/mail\/unsubscribe\?token=/);
    const [hook] = await receiver.waitFor(1, 10_000);
    expect(hook?.body).toMatchObject({ type: 'meeting.reminder' });
  }, 70_000);

  it('sends none to who did not accept or turned reminders off, none of a cancelled meeting, and each once', async () => {
    // Past every reminder's time, with room for a late one.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, bookedAt + 48 * SECOND - Date.now())),
    );
    expect(reminders(unanswered)).toHaveLength(0);
    expect(reminders(muted)).toHaveLength(0);
    expect(reminders(cancelledOwner)).toHaveLength(0);
    expect(reminders(owner)).toHaveLength(1);
    // The accepted guest accepted the first meeting only (the others asked them again).
    expect(reminders(accepted)).toHaveLength(1);
    expect(await receiver.settled(500)).toHaveLength(1);
    // myMeetingEvents: one REMINDER per reminder sent, of the meetings the guest sees.
    const reminded = events.results
      .map((result) => result.data?.myMeetingEvents)
      .filter((event) => event?.kind === 'REMINDER')
      .map((event) => event?.meeting.id);
    expect(reminded.sort()).toEqual([ids.first, ids.moved].sort());
  }, 30_000);
});
