import { MEETING_PUBLIC_KEYS } from '../rest/rest-fixtures';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const READ = `query ($id: UUID!) {
  meeting(meetingId: $id) { durationMinutes timeZone endTime description recurrence startTime }
}`;

describe('the REST face keeps its wire while meetings gain time', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  it('makes a meeting of 60 minutes in UTC, whatever time fields the body carries', async () => {
    const created = await rest.post<Record<string, unknown>>(
      '/meeting/create',
      {
        json: {
          meeting: {
            title: 'Mobile planning',
            start_time: '2027-05-03T10:00:00Z',
            location: 'Room 101, HQ',
            // Not part of the REST wire: dropped like any other unknown key.
            duration_minutes: 30,
            time_zone: 'Europe/Berlin',
            description: 'ignored',
            recurrence: 'FREQ=DAILY',
          },
          participants: [{ user_id: guest.id }],
        },
      },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(MEETING_PUBLIC_KEYS);
    const shown = await t.gql.data<{ meeting: Record<string, unknown> }>(
      READ,
      { id: created.body['id'] },
      owner.token,
    );
    expect(shown.meeting).toEqual({
      durationMinutes: 60,
      timeZone: 'UTC',
      endTime: '2027-05-03T11:00:00.000Z',
      description: null,
      recurrence: null,
      startTime: '2027-05-03T10:00:00.000Z',
    });
    const read = await rest.get<Record<string, unknown>>(`/meeting/${String(created.body['id'])}`, {
      token: owner.token,
    });
    expect(Object.keys(read.body)).toEqual(MEETING_PUBLIC_KEYS);
  });

  it('documents none of the time fields on the create route', async () => {
    const document = await rest.get<Record<string, unknown>>('/openapi.json');
    const text = JSON.stringify(document.body);
    for (const field of ['duration_minutes', 'time_zone', 'recurrence', 'share_availability']) {
      expect(text).not.toContain(field);
    }
  });

  it('shows a series made over GraphQL to REST as its first occurrence, with the same fields', async () => {
    const data = await t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
      `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
        createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
      }`,
      {
        meeting: {
          title: 'Weekly planning',
          startTime: '2027-05-03T08:00:00Z',
          location: 'Room 101, HQ',
          timeZone: 'Europe/Berlin',
          durationMinutes: 30,
          recurrence: 'FREQ=WEEKLY',
        },
        participants: [{ userId: guest.id }],
      },
      owner.token,
    );
    const read = await rest.get<Record<string, unknown>>(
      `/meeting/${data.createMeeting.meeting.id}`,
      { token: owner.token },
    );
    expect(read.status).toBe(200);
    expect(Object.keys(read.body)).toEqual(MEETING_PUBLIC_KEYS);
    expect(read.body['start_time']).toBe('2027-05-03T08:00:00.000Z');
  });
});
