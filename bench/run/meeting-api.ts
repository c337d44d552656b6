import { graphqlData } from '../lib/http';
import type { Server } from '../lib/processes';

// The meeting mutations the scenarios' setups make their data with, through the service's
// GraphQL API as each meeting's owner or guest (so the data is what the API makes of it).

const CREATE =
  'mutation ($input: CreateMeetingInput!) { createMeeting(input: $input) { meeting { id } } }';
const APPROVE =
  'mutation ($id: UUID!) { approveMeeting(input: { meetingId: $id }) { meeting { id } } }';
const DECLINE =
  'mutation ($id: UUID!) { declineMeeting(input: { meetingId: $id }) { meeting { id } } }';
const CANCEL =
  'mutation ($id: UUID!, $at: DateTime!) { cancelOccurrence(input: { meetingId: $id, originalStartTime: $at }) { meeting { id } } }';
const MOVE =
  'mutation ($id: UUID!, $at: DateTime!, $to: DateTime!) { moveOccurrence(input: { meetingId: $id, originalStartTime: $at, startTime: $to }) { meeting { id } } }';

/** The meeting mutations on one service, their failures named after `what` (the setup). */
export function meetingApi(service: Server, what: string) {
  const run = <T>(token: string, query: string, variables: object): Promise<T> =>
    graphqlData<T>(service.url, token, query, variables, what);
  return {
    /** createMeeting (`meeting` a MeetingInput, `guests` user ids); answers the new id. */
    async create(token: string, meeting: object, guests: readonly string[]): Promise<string> {
      const created = await run<{ createMeeting: { meeting: { id: string } } }>(token, CREATE, {
        input: { meeting, participants: guests.map((userId) => ({ userId })) },
      });
      return created.createMeeting.meeting.id;
    },
    /** approveMeeting or declineMeeting, as the guest. */
    answer(token: string, id: string, answer: 'accept' | 'decline'): Promise<unknown> {
      return run(token, answer === 'accept' ? APPROVE : DECLINE, { id });
    },
    /** cancelOccurrence of the occurrence named by its original start, as the owner. */
    cancelOccurrence(token: string, id: string, at: Date): Promise<unknown> {
      return run(token, CANCEL, { id, at: at.toISOString() });
    },
    /** moveOccurrence to `to`, as the owner. */
    moveOccurrence(token: string, id: string, at: Date, to: Date): Promise<unknown> {
      return run(token, MOVE, { id, at: at.toISOString(), to: to.toISOString() });
    },
  };
}
