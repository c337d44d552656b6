import { waitForSubscriptions } from '../helpers/live-client';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { EventStreamClient, type StreamMessage } from '../helpers/sse-client';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Subscriptions as Server-Sent Events (graphql-sse, distinct connections mode) on
 * /graphql/stream, for clients that cannot open WebSockets: the same events, rules and bounds.
 */

describe('subscriptions as Server-Sent Events', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  let other: SeededUser;
  const streams: EventStreamClient[] = [];

  const stream = (
    token: string | undefined,
    query: string,
    variables?: Record<string, unknown>,
    lastEventId?: string,
  ): Promise<EventStreamClient> => {
    const client = new EventStreamClient();
    streams.push(client);
    return client.open(t.url, token, query, variables, lastEventId);
  };

  beforeAll(async () => {
    t = await startTestApp({ SOCKETS_PER_USER: '2' });
    [owner, guest, other] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterEach(() => {
    streams.splice(0).forEach((client) => client.close());
  });
  afterAll(() => t.close());

  it('delivers an invitation on the stream, read as the subscriber sees it', async () => {
    const invitations = await stream(
      guest.token,
      'subscription { invitationReceived { userId status meeting { title } } }',
    );
    expect(invitations.status).toBe(200);
    await waitForSubscriptions(t.instance, 1);
    const meeting = await t.seed.meeting(owner).titled('Streamed review').inviting(other).create();
    const added = await new RestClient(t.url).post(
      `/meeting/${meeting.id}/participants/add`,
      { json: { user_id: guest.id } },
      { token: owner.token },
    );
    expect(added.status).toBe(200);
    await invitations.received(1, 1_000);
    expect(invitations.messages).toEqual([
      {
        event: 'next',
        data: {
          data: {
            invitationReceived: {
              userId: guest.id,
              status: 'NEW',
              meeting: { title: 'Streamed review' },
            },
          },
        },
      },
    ]);
  });

  it('sends each event with its cursor as its id, and resumes after Last-Event-ID', async () => {
    const meeting = await t.seed.meeting(owner).titled('Resumed stream').inviting(guest).create();
    const query = `subscription ($meetingId: UUID!) {
      meetingEvents(meetingId: $meetingId) { cursor kind meeting { title } }
    }`;
    const rename = (title: string) =>
      t.gql.data(
        'mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }',
        { input: { meetingId: meeting.id, title } },
        owner.token,
      );
    const first = await stream(guest.token, query, { meetingId: meeting.id });
    await waitForSubscriptions(t.instance, 1);
    await rename('Before the gap');
    type Event = { data: { meetingEvents: { cursor: string; kind: string } } };
    const cursorOf = (message: StreamMessage | undefined) =>
      (message?.data as Event).data.meetingEvents.cursor;
    // The creation's own events may come first, if the feed had not delivered them yet.
    const edited = () =>
      first.messages.findIndex(
        (message) => (message.data as Event).data.meetingEvents.kind === 'UPDATED',
      );
    for (let tries = 0; tries < 30 && edited() < 0; tries += 1) {
      await first.received(first.messages.length + 1, 100);
    }
    expect(first.ids).toEqual(first.messages.map(cursorOf));
    const lastId = first.ids[edited()] as string;
    expect(lastId).toBe(cursorOf(first.messages[edited()]));
    first.close();
    await first.ended;

    for (const title of ['Gap one', 'Gap two', 'Gap three']) {
      await rename(title);
    }
    const resumed = await stream(guest.token, query, { meetingId: meeting.id }, lastId);
    expect(resumed.status).toBe(200);
    const replayed = await resumed.received(3, 3_000);
    expect(replayed).toHaveLength(3);
    expect(resumed.ids).toEqual(replayed.map(cursorOf));
    expect(new Set(resumed.ids).size).toBe(3);
    expect(resumed.ids.includes(lastId)).toBe(false);
  });

  it('refuses a request without a token or with a bad one (401)', async () => {
    for (const token of [undefined, 'not.a.token']) {
      const refused = await stream(token, 'subscription { invitationReceived { id } }');
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        errors: [
          expect.objectContaining({
            extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
          }),
        ],
      });
    }
  });

  it('counts streams with sockets against SOCKETS_PER_USER (429)', async () => {
    const open = [
      await stream(guest.token, 'subscription { invitationReceived { id } }'),
      await stream(guest.token, 'subscription { invitationReceived { id } }'),
    ];
    expect(open.map((client) => client.status)).toEqual([200, 200]);
    await waitForSubscriptions(t.instance, 2);
    const third = await stream(guest.token, 'subscription { invitationReceived { id } }');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({
      errors: [
        expect.objectContaining({
          extensions: expect.objectContaining({
            code: 'TOO_MANY_REQUESTS',
            reason: 'TOO_MANY_CONNECTIONS',
          }),
        }),
      ],
    });
  });

  it('refuses a query sent to the stream (400) with a coded error', async () => {
    const query = await stream(guest.token, '{ me { id } }');
    expect(query.status).toBe(400);
    expect(query.body).toEqual({
      errors: [
        expect.objectContaining({
          extensions: { code: 'BAD_USER_INPUT', reason: 'OPERATION_NEEDS_HTTP' },
        }),
      ],
    });
  });
});
