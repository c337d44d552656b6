import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import { inHours } from './rest-fixtures';

/** A value sent for a typed field, and the contract's code the REST face answers for it. */
type Case = [string, unknown, string];

/*
 * The REST face after inputs were typed (UUID, DateTime scalars): each malformed value answers the
 * same 422 code as when these fields were text checked by validators.
 */
describe('typed inputs keep the REST validation codes', () => {
  const t = useTestApp();
  const { rest } = t;
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  const create = (meeting: Record<string, unknown>, participant: Record<string, unknown>) =>
    rest.post(
      '/meeting/create',
      {
        json: {
          meeting: {
            title: 'Typed inputs',
            location: 'Room 3, HQ',
            start_time: inHours(5),
            ...meeting,
          },
          participants: [{ user_id: guest.id, ...participant }],
        },
      },
      { token: owner.token },
    );

  const startTimes: Case[] = [
    ['blank', '', 'VALIDATION_MEETING_REQUIRED'],
    ['white space', '  ', 'VALIDATION_MEETING_REQUIRED'],
    ['not a date', 'tomorrow', 'VALIDATION_MEETING_INVALID_DATE'],
    ['an impossible date', '2099-02-30T10:00:00Z', 'VALIDATION_MEETING_INVALID_DATE'],
    ['a number', 1_900_000_000, 'VALIDATION_MEETING_MUST_BE_STRING'],
    ['in the past', '2001-02-03T04:05:06Z', 'VALIDATION_MEETING_MUST_BE_FUTURE'],
    ['a week date', '2099-W01-1', 'VALIDATION_MEETING_MUST_BE_FUTURE'],
    ['a date alone', '2099-01-01', 'CREATED'],
    ['without a zone', '2099-01-01T10:00', 'CREATED'],
  ];
  it.each(startTimes)('meeting.start_time %s', async (_what, value, code) => {
    const response = await create({ start_time: value }, {});
    if (code === 'CREATED') {
      expect(response.status).toBe(201);
      return;
    }
    expect({ status: response.status, body: response.body }).toEqual({
      status: 422,
      body: { errors: { 'meeting.start_time': code } },
    });
  });

  const ids: Case[] = [
    ['blank', '', 'INVALID_UUID'],
    ['not a UUID', 'nope', 'INVALID_UUID'],
    ['a number', 7, 'MUST_BE_STRING'],
  ];
  it.each(ids)('an optional id (meeting.appointed_by) %s', async (_what, value, reason) => {
    const response = await create({ appointed_by: value }, {});
    expect({ status: response.status, body: response.body }).toEqual({
      status: 422,
      body: { errors: { 'meeting.appointed_by': `VALIDATION_MEETING_${reason}` } },
    });
  });

  const requiredIds: Case[] = [
    ['blank', '', 'REQUIRED'],
    ['null', null, 'REQUIRED'],
    ['not a UUID', 'nope', 'INVALID_UUID'],
    ['a number', 7, 'MUST_BE_STRING'],
  ];
  it.each(requiredIds)(
    'a required id (participants.[0].user_id) %s',
    async (_what, value, reason) => {
      const response = await create({}, { user_id: value });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 422,
        body: { errors: { 'participants.[0].user_id': `VALIDATION_PARTICIPANTS_${reason}` } },
      });
    },
  );

  it('reports a bad id beside the other bad fields, each once', async () => {
    const response = await create({ title: 'Short', start_time: 'soon' }, { user_id: 'x' });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 422,
      body: {
        errors: {
          'meeting.title': 'VALIDATION_MEETING_TOO_SHORT',
          'meeting.start_time': 'VALIDATION_MEETING_INVALID_DATE',
          'participants.[0].user_id': 'VALIDATION_PARTICIPANTS_INVALID_UUID',
        },
      },
    });
  });

  it('answers ids in the path and the body of adding a participant the same way', async () => {
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    const add = (meetingId: string, body: unknown) =>
      rest.post(`/meeting/${meetingId}/participants/add`, { json: body }, { token: owner.token });
    const answers = await Promise.all([
      add('not-a-uuid', { user_id: guest.id }),
      add(meeting.id, { user_id: '' }),
      add(meeting.id, { user_id: 12 }),
      add(meeting.id, {}),
    ]);
    expect(answers.map((r) => [r.status, r.body])).toEqual([
      [422, { errors: { meeting_id: 'VALIDATION_MEETING_ID_INVALID_UUID' } }],
      [422, { errors: { user_id: 'VALIDATION_USER_ID_REQUIRED' } }],
      [422, { errors: { user_id: 'VALIDATION_USER_ID_MUST_BE_STRING' } }],
      [422, { errors: { user_id: 'VALIDATION_USER_ID_REQUIRED' } }],
    ]);
    const follow = await rest.post('/follow/follow/NOT-A-UUID', undefined, { token: owner.token });
    expect([follow.status, follow.body]).toEqual([
      422,
      { errors: { user_id: 'VALIDATION_USER_ID_INVALID_UUID' } },
    ]);
  });
});
