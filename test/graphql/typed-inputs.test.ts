import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';

const ADD = `mutation ($input: AddParticipantInput!) {
  addParticipant(input: $input) { participant { id } }
}`;
const CANCEL = `mutation ($input: CancelMeetingInput!) { cancelMeeting(input: $input) { meeting { id } } }`;
const MEETINGS = `query ($filter: MeetingFilterInput) { meetings(first: 5, filter: $filter) { totalCount } }`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Variables a typed scalar refuses are judged before the operation runs, field by field. */
describe('typed GraphQL inputs', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  it('names a refused id by its field in the input, beside the other bad fields', async () => {
    const error = await t.gql.error(
      ADD,
      { input: { meetingId: 'not-a-uuid', userId: 42, status: 'MAYBE' } },
      owner.token,
    );
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: { meetingId: 'INVALID_UUID', userId: 'MUST_BE_STRING', status: 'INVALID_CHOICE' },
    });
    // An args-class input (the lifecycle) is named from the argument, as its rules are.
    const lifecycle = await t.gql.error(CANCEL, { input: { meetingId: ' ' } }, owner.token);
    expect(lifecycle.extensions?.['fields']).toEqual({ 'input.meetingId': 'REQUIRED' });
  });

  it('judges the caller first: an anonymous caller learns nothing about the inputs', async () => {
    const error = await t.gql.error(ADD, { input: { meetingId: 'x', userId: 'y' } });
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'NOT_AUTHENTICATED' });
  });

  it('refuses a malformed id written in the document as a validation error', async () => {
    const error = await t.gql.error(
      `mutation { addParticipant(input: { meetingId: "nope", userId: "${guest.id}" }) { participant { id } } }`,
      {},
      owner.token,
    );
    expect(error.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('reads DateTime filters as instants: a date Date cannot read is INVALID_DATE', async () => {
    const ok = await t.gql.data<{ meetings: { totalCount: number } }>(
      MEETINGS,
      { filter: { startsAfter: '2000-01-01', startsBefore: '2999-01-01T00:00:00+02:00' } },
      owner.token,
    );
    expect(ok.meetings.totalCount).toBe(0);
    for (const [value, reason] of [
      ['2099-W01-1', 'INVALID_DATE'],
      ['soon', 'INVALID_DATE'],
      [7, 'MUST_BE_STRING'],
    ] as const) {
      const error = await t.gql.error(MEETINGS, { filter: { startsAfter: value } }, owner.token);
      expect(error.extensions?.['fields']).toEqual({ startsAfter: reason });
    }
  });

  it('answers refused variables 400 to graphql-response+json clients, 200 to JSON ones', async () => {
    const post = (accept: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept,
          authorization: `Bearer ${owner.token}`,
        },
        body: JSON.stringify({
          query: CANCEL,
          variables: { input: { meetingId: UNKNOWN_ID.slice(1) } },
        }),
      });
    const modern = await post('application/graphql-response+json');
    const legacy = await post('application/json');
    expect([modern.status, legacy.status]).toEqual([400, 200]);
    const body = (await modern.json()) as {
      data?: unknown;
      errors: Array<{ extensions: unknown }>;
    };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fields: { 'input.meetingId': 'INVALID_UUID' },
    });
  });
});
