import {
  type LiveClient,
  useLiveClients,
  waitForActiveSubscriptions,
} from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app';

/*
 * What one change costs the instance that serves subscribers of every change (myMeetingEvents):
 * its meeting is read once for all of them, and a subscriber who may not see it costs nothing.
 * Writes go through instance A; the subscribers and the statements counted are instance B's.
 */

const MY_EVENTS = `subscription { myMeetingEvents { kind meeting { id title } } }`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const RENAMES = 5;

type MyEvent = { myMeetingEvents: { kind: string; meeting: { id: string; title: string } } };

describe('changes heard by many subscribers of every change on one instance', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  let outsider: SeededUser;
  const connect = useLiveClients();
  const open = (token: string): LiveClient => connect(b.url, token);

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

  /**
   * The guest's one subscription and `outsiders` subscriptions of a user who may see only the
   * last change (the marker): the statements instance B sends while all of them hear
   * RENAMES changes and the marker, and what each received.
   */
  async function hear(outsiders: number) {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const marker = await a.seed.meeting(owner).inviting(outsider).create();
    const guestSocket = open(guest.token);
    const outsiderSocket = open(outsider.token);
    const guestEvents = guestSocket.subscribe<MyEvent>(MY_EVENTS);
    const outsiderEvents = Array.from({ length: outsiders }, () =>
      outsiderSocket.subscribe<MyEvent>(MY_EVENTS),
    );
    await waitForActiveSubscriptions(b.instance, (active) => active === 1 + outsiders);
    const statements = await b.countQueries(async () => {
      for (let i = 1; i <= RENAMES; i += 1) {
        await rename(meeting.id, `Rename ${i}`);
      }
      await rename(marker.id, 'Marker');
      // Each subscription hears changes in order: once it has the marker, it heard the others.
      await guestEvents.received(RENAMES, 5_000);
      await Promise.all(outsiderEvents.map((events) => events.received(1, 5_000)));
    });
    await Promise.all([guestSocket.close(), outsiderSocket.close()]);
    await waitForActiveSubscriptions(b.instance, (active) => active === 0);
    return {
      statements,
      guest: guestEvents.data().map((event) => event.myMeetingEvents),
      meeting: meeting.id,
      outsiders: outsiderEvents.map((events) =>
        events.data().map((event) => event.myMeetingEvents.meeting),
      ),
      marker: { id: marker.id, title: 'Marker' },
    };
  }

  it('reads each change once, not once per subscriber who cannot see its meeting', async () => {
    const few = await hear(1);
    const many = await hear(20);

    for (const heard of [few, many]) {
      // Each event shows the meeting as read when the change reached B (a later rename may
      // already be in it); the last one, the last title.
      expect(heard.guest.map((event) => [event.kind, event.meeting.id])).toEqual(
        Array.from({ length: RENAMES }, () => ['UPDATED', heard.meeting]),
      );
      expect(heard.guest.at(-1)?.meeting.title).toBe(`Rename ${RENAMES}`);
      expect(heard.outsiders).toEqual(heard.outsiders.map(() => [heard.marker]));
    }
    // 19 more subscriptions heard 6 changes each; they could see one of them. Read per
    // subscriber and per change, that was 2 statements or more each (the caller, the meeting).
    const perExtraSubscriber = (many.statements - few.statements) / 19;
    console.log(
      `myMeetingEvents fan-out: ${few.statements} statements with 2 subscribers, ` +
        `${many.statements} with 21 (${perExtraSubscriber.toFixed(2)} per extra subscriber)`,
    );
    expect(perExtraSubscriber).toBeLessThanOrEqual(1.5);
  });
});
