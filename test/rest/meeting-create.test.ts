import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import {
  aDateTime,
  aUuid,
  expectAnswer,
  expectMeetingKeys,
  inHours,
  meetingBody,
  meetingPublic,
  participantPublic,
  publicOf,
  UNKNOWN_ID,
  type WireMeeting,
} from './rest-fixtures';

describe('POST /api/v1/meeting/create', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;

  beforeAll(async () => {
    [owner, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });

  const create = (by: SeededUser, body: unknown) =>
    rest.post<WireMeeting>('/meeting/create', { json: body }, { token: by.token });

  it('creates a pending meeting: 201, the owner accepted first, then the guests in the order given', async () => {
    const startTime = inHours(72);
    const response = await create(
      owner,
      meetingBody([bob.id, { user_id: carol.id, status: 'accepted' }], {
        start_time: startTime,
      }),
    );
    const participant = (user: SeededUser, status: string) =>
      participantPublic({
        meeting_id: response.body.id,
        user_id: user.id,
        user: publicOf(user),
        status,
      });
    expectAnswer(
      response,
      201,
      meetingPublic({
        title: 'Roadmap review',
        owner_id: owner.id,
        start_time: startTime,
        location: 'Room 7, east wing',
        participants: [
          participant(owner, 'accepted'),
          participant(bob, 'new'),
          participant(carol, 'accepted'),
        ],
      }),
    );
    expectMeetingKeys(response.body);
    expect(response.text).not.toMatch(/password|hash/i);
  });

  it('keeps the optional fields it is given and accepts every meeting type by its wire name', async () => {
    for (const type of ['all-hands', 'one-on-one', 'team-meeting', 'standup', 'project-meeting']) {
      const response = await create(
        owner,
        meetingBody([bob.id], {
          type,
          location_url: 'https://meet.example.com/roadmap',
          appointed_by: carol.id,
          assigned_to: bob.id,
        }),
      );
      expectAnswer(
        response,
        201,
        meetingPublic({
          type,
          owner_id: owner.id,
          location_url: 'https://meet.example.com/roadmap',
          appointed_by: carol.id,
          assigned_to: bob.id,
        }),
      );
    }
  });

  it('accepts title and location of 6 and 40 characters and a location_url of 100', async () => {
    for (const size of [6, 40]) {
      const response = await create(
        owner,
        meetingBody([bob.id], {
          title: 'T'.repeat(size),
          location: 'L'.repeat(size),
          location_url: 'u'.repeat(100),
        }),
      );
      expectAnswer(
        response,
        201,
        meetingPublic({
          title: 'T'.repeat(size),
          location: 'L'.repeat(size),
          location_url: 'u'.repeat(100),
          owner_id: owner.id,
        }),
      );
    }
  });

  it('refuses title and location of 5 and 41 characters and a location_url of 101', async () => {
    expectAnswer(
      await create(owner, meetingBody([bob.id], { title: 'T'.repeat(5), location: 'L'.repeat(5) })),
      422,
      {
        errors: {
          'meeting.title': 'VALIDATION_MEETING_TOO_SHORT',
          'meeting.location': 'VALIDATION_MEETING_TOO_SHORT',
        },
      },
    );
    expectAnswer(
      await create(
        owner,
        meetingBody([bob.id], {
          title: 'T'.repeat(41),
          location: 'L'.repeat(41),
          location_url: 'u'.repeat(101),
        }),
      ),
      422,
      {
        errors: {
          'meeting.title': 'VALIDATION_MEETING_TOO_LONG',
          'meeting.location': 'VALIDATION_MEETING_TOO_LONG',
          'meeting.location_url': 'VALIDATION_MEETING_TOO_LONG',
        },
      },
    );
  });

  it('refuses a start in the past or not a date-time, keyed meeting.start_time', async () => {
    expectAnswer(await create(owner, meetingBody([bob.id], { start_time: inHours(-1) })), 422, {
      errors: { 'meeting.start_time': 'VALIDATION_MEETING_MUST_BE_FUTURE' },
    });
    expectAnswer(await create(owner, meetingBody([bob.id], { start_time: 'tomorrow' })), 422, {
      errors: { 'meeting.start_time': 'VALIDATION_MEETING_INVALID_DATE' },
    });
  });

  it('refuses an unknown meeting type or participant status as INVALID_CHOICE', async () => {
    expectAnswer(await create(owner, meetingBody([bob.id], { type: 'party' })), 422, {
      errors: { 'meeting.type': 'VALIDATION_MEETING_INVALID_CHOICE' },
    });
    expectAnswer(await create(owner, meetingBody([{ user_id: bob.id, status: 'maybe' }])), 422, {
      errors: { 'participants.[0].status': 'VALIDATION_PARTICIPANTS_INVALID_CHOICE' },
    });
  });

  it('reports an unknown enum value together with the other bad fields', async () => {
    expectAnswer(
      await create(owner, meetingBody([bob.id], { type: 'party', title: 'Short' })),
      422,
      {
        errors: {
          'meeting.type': 'VALIDATION_MEETING_INVALID_CHOICE',
          'meeting.title': 'VALIDATION_MEETING_TOO_SHORT',
        },
      },
    );
  });

  it('keys participant errors by their position, as participants.[i].user_id', async () => {
    expectAnswer(await create(owner, meetingBody([bob.id, 'not-a-uuid'])), 422, {
      errors: { 'participants.[1].user_id': 'VALIDATION_PARTICIPANTS_INVALID_UUID' },
    });
    expectAnswer(await create(owner, meetingBody([owner.id])), 422, {
      errors: { 'participants.[0].user_id': 'VALIDATION_PARTICIPANTS_INVALID_CHOICE' },
    });
    expectAnswer(await create(owner, { ...meetingBody([]), participants: [{}] }), 422, {
      errors: { 'participants.[0].user_id': 'VALIDATION_PARTICIPANTS_REQUIRED' },
    });
  });

  it('needs at least one participant, and the meeting and its required fields', async () => {
    expectAnswer(await create(owner, meetingBody([])), 422, {
      errors: { participants: 'VALIDATION_PARTICIPANTS_TOO_SHORT' },
    });
    expectAnswer(await create(owner, {}), 422, {
      errors: {
        meeting: 'VALIDATION_MEETING_REQUIRED',
        participants: 'VALIDATION_PARTICIPANTS_REQUIRED',
      },
    });
    expectAnswer(
      await create(owner, {
        meeting: { location: 'Room 7, east wing' },
        participants: [{ user_id: bob.id }],
      }),
      422,
      {
        errors: {
          'meeting.title': 'VALIDATION_MEETING_REQUIRED',
          'meeting.start_time': 'VALIDATION_MEETING_REQUIRED',
        },
      },
    );
  });

  it('answers 404 USER_NOT_FOUND when a participant does not exist', async () => {
    expectAnswer(await create(owner, meetingBody([bob.id, UNKNOWN_ID])), 404, {
      errors: 'USER_NOT_FOUND',
    });
  });

  it('reads JSON only: a form body is 415 and broken JSON is 400', async () => {
    const form = await rest.post(
      '/meeting/create',
      { form: { 'meeting[title]': 'Roadmap review' } },
      { token: owner.token },
    );
    expectAnswer(form, 415, { errors: 'UNSUPPORTED_MEDIA_TYPE' });
    const broken = await rest.post(
      '/meeting/create',
      { raw: '{"meeting": {', contentType: 'application/json' },
      { token: owner.token },
    );
    expectAnswer(broken, 400, { errors: 'MALFORMED_BODY' });
  });

  it('answers ids in lowercase and date-times in UTC, whatever offset the client sent', async () => {
    const response = await create(
      owner,
      meetingBody([bob.id], { start_time: '2099-06-01T12:30:00+02:00' }),
    );
    expectAnswer(
      response,
      201,
      meetingPublic({
        id: aUuid(),
        owner_id: owner.id,
        start_time: '2099-06-01T10:30:00.000Z',
        created_at: aDateTime(),
      }),
    );
  });
});
