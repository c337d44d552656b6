import { compareCursors } from '../../src/platform/live/change-log';
import {
  type LiveClient,
  type Subscriber,
  useLiveClients,
  waitForActiveSubscriptions,
} from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { EventStreamClient } from '../helpers/sse-client';
import { testDatabaseKind } from '../helpers/test-database';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * 1,000 subscribers of every change (myMeetingEvents) on one instance, over WebSocket and event
 * stream, while writers rename their meetings 100 times a second: most subscribers may see none
 * of those meetings. Every subscriber keeps up (its queue holds only its own events: each change
 * is handed to those who may see it), so none is closed, and each hears every change of the
 * meetings it may see once, in order, and nothing else. Timing is the bench's to measure
 * (`npm run bench -- --fan-out`); here, the count and order of what arrived. One project runs it.
 */

const WRITERS = 10;
const GUESTS_PER_MEETING = 2;
const WRITES_PER_SECOND = 100;
const SECONDS = 8;
const BYSTANDERS = 20;
const SUBSCRIPTIONS_PER_BYSTANDER = 48;
/** Involved users who also subscribe over the event stream. */
const ON_EVENT_STREAM = 10;

const MY_EVENTS = `subscription { myMeetingEvents { cursor kind meeting { id } } }`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
type MyEvent = { myMeetingEvents: { cursor: string; kind: string; meeting: { id: string } } };

/** What one subscription heard: the meeting and cursor of each event, in order. */
interface Heard {
  meetings: string[];
  cursors: string[];
}

const heardOnSocket = (subscriber: Subscriber<MyEvent>): Heard => {
  const events = subscriber.data().map((data) => data.myMeetingEvents);
  return {
    meetings: events.map((event) => event.meeting.id),
    cursors: events.map((event) => event.cursor),
  };
};

const heardOnStream = (stream: EventStreamClient): Heard => {
  const events = stream.messages
    .filter((message) => message.event === 'next')
    .map((message) => (message.data as { data: MyEvent }).data.myMeetingEvents);
  return {
    meetings: events.map((event) => event.meeting.id),
    cursors: events.map((event) => event.cursor),
  };
};

(testDatabaseKind === 'embedded' ? describe : describe.skip)(
  'a thousand subscribers of every change under 100 writes a second',
  () => {
    let t: TestApp;
    const connect = useLiveClients();
    const streams: EventStreamClient[] = [];

    beforeAll(async () => {
      t = await startTestApp({ SUBSCRIPTIONS_PER_SOCKET: String(SUBSCRIPTIONS_PER_BYSTANDER) });
    });
    afterEach(() => streams.splice(0).forEach((stream) => stream.close()));
    afterAll(() => t.close());

    // A thousand sockets and 800 writes take more than the default 30 s on a loaded machine.
    it('closes none, and hands each the changes it may see, once and in order', async () => {
      const users = await t.seed.users(WRITERS * (1 + GUESTS_PER_MEETING) + BYSTANDERS);
      const writers = users.slice(0, WRITERS);
      const bystanders = users.slice(-BYSTANDERS);
      const meetings: Array<{ id: string; audience: SeededUser[] }> = [];
      for (const [index, writer] of writers.entries()) {
        const guests = users.slice(
          WRITERS + index * GUESTS_PER_MEETING,
          WRITERS + (index + 1) * GUESTS_PER_MEETING,
        );
        const meeting = await t.seed
          .meeting(writer)
          .inviting(...guests)
          .create();
        meetings.push({ id: meeting.id, audience: [writer, ...guests] });
      }
      // Who hears what: each meeting's owner and guests, on a socket of their own (and the
      // first few on the event stream too); the bystanders, many subscriptions each.
      const involved: Array<{ meetingId: string; heard: () => Heard }> = [];
      const sockets: LiveClient[] = [];
      for (const meeting of meetings) {
        for (const user of meeting.audience) {
          const socket = connect(t.url, user.token);
          sockets.push(socket);
          const subscriber = socket.subscribe<MyEvent>(MY_EVENTS);
          involved.push({ meetingId: meeting.id, heard: () => heardOnSocket(subscriber) });
          if (streams.length < ON_EVENT_STREAM) {
            const stream = new EventStreamClient();
            streams.push(stream);
            await stream.open(t.url, user.token, MY_EVENTS);
            involved.push({ meetingId: meeting.id, heard: () => heardOnStream(stream) });
          }
        }
      }
      const bystanding: Array<Subscriber<MyEvent>> = [];
      for (const user of bystanders) {
        const socket = connect(t.url, user.token);
        sockets.push(socket);
        for (let i = 0; i < SUBSCRIPTIONS_PER_BYSTANDER; i += 1) {
          bystanding.push(socket.subscribe<MyEvent>(MY_EVENTS));
        }
      }
      const subscriptions = involved.length + bystanding.length;
      expect(subscriptions).toBe(1_000);
      await waitForActiveSubscriptions(t.instance, (active) => active === subscriptions, 20_000);

      // Each writer renames its meeting WRITES_PER_SECOND / WRITERS times a second.
      const perWriter = (WRITES_PER_SECOND / WRITERS) * SECONDS;
      const interval = 1_000 / (WRITES_PER_SECOND / WRITERS);
      const started = Date.now();
      // Sent on time, not after the previous answer: the rate is offered, whatever the latency.
      const writes: Array<Promise<unknown>> = [];
      for (let n = 0; n < perWriter; n += 1) {
        const due = started + n * interval;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
        for (const [index, writer] of writers.entries()) {
          const meetingId = meetings[index]?.id as string;
          const title = `Writer ${index} rename ${n}`;
          writes.push(t.gql.data(UPDATE, { input: { meetingId, title } }, writer.token));
        }
      }
      await Promise.all(writes);
      const writing = (Date.now() - started) / 1000;
      const deadline = Date.now() + 15_000;
      while (
        involved.some(({ heard }) => heard().cursors.length < perWriter) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A little longer: anything more (a change heard twice, another's) would arrive by now.
      await new Promise((resolve) => setTimeout(resolve, 500));

      const closed = await Promise.all(
        sockets.map((socket) =>
          Promise.race([socket.closed, new Promise((resolve) => setTimeout(resolve, 10, 'open'))]),
        ),
      );
      expect(closed.filter((state) => state !== 'open')).toEqual([]);
      for (const { meetingId, heard } of involved) {
        const { meetings: of, cursors } = heard();
        expect({ count: cursors.length, others: of.filter((id) => id !== meetingId) }).toEqual({
          count: perWriter,
          others: [],
        });
        expect(new Set(cursors).size).toBe(perWriter);
        expect([...cursors].sort(compareCursors)).toEqual(cursors);
      }
      expect(bystanding.map((subscriber) => subscriber.results.length)).toEqual(
        bystanding.map(() => 0),
      );
      console.log(
        `audience load: ${subscriptions} subscriptions (${streams.length} on the event stream), ` +
          `${perWriter * WRITERS} writes answered in ${writing.toFixed(1)} s, ` +
          `${involved.length * perWriter} events delivered, none closed`,
      );
    }, 120_000);
  },
);
