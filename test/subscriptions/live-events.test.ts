import { Client } from 'pg';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import { type LiveClient, useLiveClients, waitForSubscriptions } from '../helpers/live-client';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Subscriptions over WebSocket across two service instances on one database: a write served by
 * instance A reaches a subscriber connected to instance B (PostgreSQL LISTEN/NOTIFY), and only
 * subscribers who may see it.
 */

const INVITATIONS = `subscription {
  invitationReceived { id meetingId userId status meeting { id title status } }
}`;
const MEETING_EVENTS = `subscription ($meetingId: UUID!) {
  meetingEvents(meetingId: $meetingId) {
    kind userId occurredAt
    meeting { id title status }
    participant { userId status }
  }
}`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;
const REMOVE = `mutation ($input: RemoveParticipantInput!) {
  removeParticipant(input: $input) { meeting { id } }
}`;

type Invitation = { invitationReceived: { meetingId: string; userId: string; status: string } };
type Event = {
  meetingEvents: {
    kind: string;
    userId: string | null;
    meeting: { id: string; title: string; status: string };
    participant: { userId: string; status: string } | null;
  };
};

describe('subscriptions reaching every instance', () => {
  let a: TestApp;
  let b: TestApp;
  let restA: RestClient;
  let owner: SeededUser;
  let guest: SeededUser;
  let other: SeededUser;
  let outsider: SeededUser;
  const connect = useLiveClients();
  const open = (token?: string, on: TestApp = b): LiveClient => connect(on.url, token);

  beforeAll(async () => {
    a = await startTestApp();
    b = await startSecondInstance(a);
    restA = new RestClient(a.url);
    [owner, guest, other, outsider] = (await a.seed.users(4)) as [
      SeededUser,
      SeededUser,
      SeededUser,
      SeededUser,
    ];
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const rename = (meetingId: string, title: string) =>
    a.gql.data(UPDATE, { input: { meetingId, title } }, owner.token);

  it('delivers an invitation made through REST on instance A to its guest on instance B within 1 s', async () => {
    const meeting = await a.seed.meeting(owner).inviting(other).create();
    const guestSocket = open(guest.token);
    const outsiderSocket = open(outsider.token);
    expect(await guestSocket.acknowledged).toBe(true);
    const invitations = guestSocket.subscribe<Invitation>(INVITATIONS);
    const outsiderInvitations = outsiderSocket.subscribe<Invitation>(INVITATIONS);
    await waitForSubscriptions(b.instance, 2);

    const added = await restA.post(
      `/meeting/${meeting.id}/participants/add`,
      { json: { user_id: guest.id } },
      { token: owner.token },
    );
    const answered = Date.now();
    expect(added.status).toBe(200);
    await invitations.received(1, 1_000);
    const latency = Date.now() - answered;

    expect(invitations.data()).toEqual([
      {
        invitationReceived: {
          id: expect.any(String),
          meetingId: meeting.id,
          userId: guest.id,
          status: 'NEW',
          meeting: { id: meeting.id, title: 'Weekly sync', status: 'PENDING' },
        },
      },
    ]);
    expect(latency).toBeLessThan(1_000);
    // Nobody else hears of it.
    await outsiderInvitations.received(1, 300);
    expect(outsiderInvitations.results).toEqual([]);
  });

  it("refuses an outsider's subscription to a meeting as the query does, and tells them nothing", async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const socket = open(outsider.token);
    const hidden = socket.subscribe(MEETING_EVENTS, { meetingId: meeting.id });
    const unknown = socket.subscribe(MEETING_EVENTS, {
      meetingId: '00000000-0000-4000-8000-000000000000',
    });
    const malformed = socket.subscribe(MEETING_EVENTS, { meetingId: 'not-a-uuid' });
    await Promise.all([hidden.finished(), unknown.finished(), malformed.finished()]);
    // Refused when subscribing: one result carrying the error, then the end.
    for (const refused of [hidden, unknown]) {
      expect(refused.results).toEqual([
        {
          errors: [
            expect.objectContaining({
              extensions: { code: 'NOT_FOUND', reason: 'MEETING_NOT_FOUND' },
            }),
          ],
        },
      ]);
    }
    // A malformed id is refused before the subscription runs, as over HTTP.
    expect(malformed.ended?.error).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({
          code: 'BAD_USER_INPUT',
          fields: { meetingId: 'INVALID_UUID' },
        }),
      }),
    ]);
    expect([hidden, unknown].map((s) => s.ended)).toEqual([{ error: null }, { error: null }]);
    await rename(meeting.id, 'Renamed in secret');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([hidden, unknown, malformed].flatMap((s) => s.results)).toHaveLength(2);
  });

  it('stops delivering to a participant once removed, and goes on for the others', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest, other).create();
    const guestEvents = open(guest.token).subscribe<Event>(MEETING_EVENTS, {
      meetingId: meeting.id,
    });
    const otherEvents = open(other.token).subscribe<Event>(MEETING_EVENTS, {
      meetingId: meeting.id,
    });
    await waitForSubscriptions(b.instance, 2);

    await rename(meeting.id, 'Renamed once');
    await Promise.all([guestEvents.received(1), otherEvents.received(1)]);
    await a.gql.data(REMOVE, { input: { meetingId: meeting.id, userId: guest.id } }, owner.token);
    await rename(meeting.id, 'Renamed twice');
    await otherEvents.received(3);
    await guestEvents.received(2, 300);

    expect(guestEvents.data().map((e) => e.meetingEvents.kind)).toEqual(['UPDATED']);
    expect(guestEvents.ended).toEqual({ error: null });
    expect(otherEvents.data()).toEqual([
      {
        meetingEvents: expect.objectContaining({
          kind: 'UPDATED',
          meeting: expect.objectContaining({ title: 'Renamed once' }),
        }),
      },
      {
        meetingEvents: expect.objectContaining({
          kind: 'PARTICIPANT_REMOVED',
          userId: guest.id,
          participant: null,
        }),
      },
      {
        meetingEvents: expect.objectContaining({
          kind: 'UPDATED',
          meeting: expect.objectContaining({ title: 'Renamed twice' }),
        }),
      },
    ]);
  });

  it('tells the owner of answers and of the meeting being confirmed', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const events = open(owner.token).subscribe<Event>(MEETING_EVENTS, { meetingId: meeting.id });
    await waitForSubscriptions(b.instance, 1);
    const approved = await restA.post(`/meeting/${meeting.id}/approve`, undefined, {
      token: guest.token,
    });
    expect(approved.status).toBe(200);
    await events.received(2);
    expect(events.data().map((e) => e.meetingEvents)).toEqual([
      expect.objectContaining({
        kind: 'PARTICIPANT_ANSWERED',
        userId: guest.id,
        participant: { userId: guest.id, status: 'ACCEPTED' },
      }),
      expect.objectContaining({
        kind: 'CONFIRMED',
        meeting: expect.objectContaining({ status: 'CONFIRMED' }),
      }),
    ]);
  });

  it('refuses a socket without a token or with a bad one (4403)', async () => {
    for (const token of [undefined, 'not.a.token']) {
      const socket = open(token);
      expect(await socket.acknowledged).toBe(false);
      expect(await socket.closed).toEqual({ code: 4403, reason: 'Forbidden' });
    }
  });

  it('closes the socket (4403) when its user is deactivated, at the next event', async () => {
    const [leaving] = await a.seed.users(1);
    if (!leaving) {
      throw new Error('no user');
    }
    const meeting = await a.seed.meeting(owner).inviting(leaving).create();
    const socket = open(leaving.token);
    const events = socket.subscribe<Event>(MEETING_EVENTS, { meetingId: meeting.id });
    await waitForSubscriptions(b.instance, 1);
    await a.seed.update(leaving, { isActive: false });
    await rename(meeting.id, 'After deactivation');
    expect(await socket.closed).toEqual({ code: 4403, reason: 'Forbidden' });
    expect(events.results).toEqual([]);
  });

  it('serves only subscriptions over WebSocket: a query there is answered with a coded error', async () => {
    const socket = open(guest.token);
    const query = socket.subscribe('{ me { id } }');
    await query.finished();
    expect(query.ended?.error).toEqual([
      expect.objectContaining({
        extensions: { code: 'BAD_USER_INPUT', reason: 'OPERATION_NEEDS_HTTP' },
      }),
    ]);
  });

  it('answers a subscription sent over HTTP with a coded error', async () => {
    const answer = await b.gql.request(INVITATIONS, {}, guest.token);
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'SUBSCRIPTION_NEEDS_WEBSOCKET',
    });
  });

  it('recovers when the listening connection is terminated, without a service restart', async () => {
    const meeting = await a.seed.meeting(owner).inviting(guest).create();
    const events = open(guest.token).subscribe<Event>(MEETING_EVENTS, { meetingId: meeting.id });
    await waitForSubscriptions(b.instance, 1);
    const admin = new Client({ connectionString: a.instance.database.url });
    await admin.connect();
    try {
      const listeners = async (): Promise<number[]> =>
        (
          await admin.query<{ pid: number }>(
            'select pid from pg_stat_activity where application_name = $1 and datname = current_database()',
            [LISTENER_APPLICATION_NAME],
          )
        ).rows.map((row) => row.pid);
      const before = await listeners();
      expect(before).toHaveLength(2);
      // Both instances' listeners: B's is the one whose subscriber must hear of the next change.
      await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [before]);
      const deadline = Date.now() + 10_000;
      let fresh: number[] = [];
      while (fresh.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        fresh = (await listeners()).filter((pid) => !before.includes(pid));
      }
      expect(fresh).toHaveLength(2);
    } finally {
      await admin.end();
    }
    await rename(meeting.id, 'After the reconnect');
    await events.received(1);
    expect(events.data()).toEqual([
      {
        meetingEvents: expect.objectContaining({
          kind: 'UPDATED',
          meeting: expect.objectContaining({ title: 'After the reconnect' }),
        }),
      },
    ]);
  });
});
