import { compareCursors } from '../../src/platform/live/change-log';
import { burstOfChanges } from '../helpers/change-burst';
import {
  type Closed,
  type LiveClient,
  useLiveClients,
  waitForActiveSubscriptions,
} from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { EventStreamClient } from '../helpers/sse-client';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Subscribers of every change (myMeetingEvents) hear only the changes of meetings they may see:
 * each change is handed to those who may see it, so a subscriber's queue (3 here) holds its own
 * events only. A burst of one meeting's changes closes the one subscriber who cannot keep up
 * with them (1013), who resumes after its last cursor without loss; everyone else, on WebSocket
 * or event stream, stays open and hears their own changes.
 */

const QUEUE = 3;
const BURST = 200;
const MY_EVENTS = `subscription ($after: String) {
  myMeetingEvents(after: $after) { cursor kind meeting { id } }
}`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;

type MyEvent = { myMeetingEvents: { cursor: string; kind: string; meeting: { id: string } } };

/** Whether a socket is still open `ms` from now (its close, if it came, otherwise). */
const stillOpen = (closed: Promise<Closed>, ms: number): Promise<Closed | 'open'> =>
  Promise.race([closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms))]);

describe('changes handed only to the subscribers who may see them', () => {
  let t: TestApp;
  let busy: SeededUser;
  let others: SeededUser[];
  /** Each meeting's one guest, who does not subscribe. */
  let guests: SeededUser[];
  const connect = useLiveClients();
  const streams: EventStreamClient[] = [];

  beforeAll(async () => {
    t = await startTestApp({ SUBSCRIPTION_QUEUE_SIZE: String(QUEUE) });
    const users = await t.seed.users(18);
    [busy, ...others] = users.slice(0, 9) as [SeededUser, ...SeededUser[]];
    guests = users.slice(9);
  });
  afterEach(() => streams.splice(0).forEach((stream) => stream.close()));
  afterAll(() => t.close());

  it(`closes only the subscriber a burst of ${BURST} changes concerns, who resumes without loss`, async () => {
    const busyMeeting = await t.seed
      .meeting(busy)
      .inviting(guests[0] as SeededUser)
      .create();
    const ownMeetings = await Promise.all(
      others.map((user, i) =>
        t.seed
          .meeting(user)
          .inviting(guests[i + 1] as SeededUser)
          .create(),
      ),
    );
    const busySocket = connect(t.url, busy.token);
    const busyEvents = busySocket.subscribe<MyEvent>(MY_EVENTS);
    // Six on WebSocket, two on the event stream: neither hears the burst.
    const sockets: LiveClient[] = others.slice(0, 6).map((user) => connect(t.url, user.token));
    const socketEvents = sockets.map((socket) => socket.subscribe<MyEvent>(MY_EVENTS));
    for (const user of others.slice(6)) {
      const stream = new EventStreamClient();
      streams.push(stream);
      await stream.open(t.url, user.token, MY_EVENTS);
    }
    await waitForActiveSubscriptions(t.instance, (active) => active === 1 + others.length);

    // The busy subscriber's first event: where it resumes from, at least.
    await t.gql.data(
      UPDATE,
      { input: { meetingId: busyMeeting.id, title: 'Busy meeting' } },
      busy.token,
    );
    await busyEvents.received(1, 5_000);
    await burstOfChanges(t, busyMeeting.id, BURST);
    expect(await busySocket.closed).toEqual({ code: 1013, reason: 'Slow consumer' });

    // Everyone else is still open and hears their own change, and nothing else.
    for (const [index, user] of others.entries()) {
      const meetingId = ownMeetings[index]?.id as string;
      await t.gql.data(UPDATE, { input: { meetingId, title: `Own meeting ${index}` } }, user.token);
    }
    for (const [index, events] of socketEvents.entries()) {
      await events.received(1, 5_000);
      expect(events.data().map((event) => event.myMeetingEvents.meeting.id)).toEqual([
        ownMeetings[index]?.id,
      ]);
    }
    for (const [index, stream] of streams.entries()) {
      const messages = await stream.received(1, 5_000);
      expect(messages.map((message) => message.event)).toEqual(['next']);
      expect(JSON.stringify(messages[0]?.data)).toContain(ownMeetings[6 + index]?.id as string);
    }
    const closes = await Promise.all(sockets.map((socket) => stillOpen(socket.closed, 200)));
    expect(closes).toEqual(sockets.map(() => 'open'));

    // The busy subscriber resumes after the last event it received: every change of the burst
    // arrives, once, in order.
    const heard = busyEvents.data().map((event) => event.myMeetingEvents.cursor);
    const resumed = connect(t.url, busy.token).subscribe<MyEvent>(MY_EVENTS, {
      after: heard.at(-1),
    });
    const expected = 1 + BURST - heard.length;
    await resumed.received(expected, 10_000);
    const all = [...heard, ...resumed.data().map((event) => event.myMeetingEvents.cursor)];
    expect(all).toHaveLength(1 + BURST);
    expect(new Set(all).size).toBe(1 + BURST);
    expect([...all].sort(compareCursors)).toEqual(all);
    expect(
      resumed.data().every((event) => event.myMeetingEvents.meeting.id === busyMeeting.id),
    ).toBe(true);
  });
});
