import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';
import { getIcs, type IcsAnswer } from './documents';

/** A calendar feed as GraphQL answers it. */
export interface Feed {
  url: string | null;
  createdAt: string;
}

const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id } }
}`;
const CREATE_FEED = 'mutation { createCalendarFeed { feed { url createdAt } } }';

/** A series the feed suites book: weekly on Thursdays at 10:00 in Berlin, ten times from 2028. */
export const WEEKLY_SEMINAR = {
  title: 'Seminar',
  startTime: '2028-01-06T09:00:00Z',
  timeZone: 'Europe/Berlin',
  recurrence: 'FREQ=WEEKLY;COUNT=10',
} as const;

/** What the calendar tests do through the API, as a user and as a calendar app. */
export class CalendarClient {
  constructor(private readonly t: TestApp) {}

  /** Books a meeting of `owner` (title and place given unless `meeting` says otherwise). */
  async meeting(
    owner: SeededUser,
    meeting: Record<string, unknown>,
    guests: ReadonlyArray<Pick<SeededUser, 'id'>>,
  ): Promise<string> {
    const data = await this.t.gql.data<{ createMeeting: { meeting: { id: string } } }>(
      CREATE_MEETING,
      {
        meeting: { title: 'Design review', location: 'Room 101, HQ', ...meeting },
        participants: guests.map((guest) => ({ userId: guest.id })),
      },
      owner.token,
    );
    return data.createMeeting.meeting.id;
  }

  /** Makes (or makes again) the user's feed. */
  async createFeed(user: SeededUser): Promise<Feed> {
    const data = await this.t.gql.data<{ createCalendarFeed: { feed: Feed } }>(
      CREATE_FEED,
      {},
      user.token,
    );
    return data.createCalendarFeed.feed;
  }

  /** Reads a feed's address on this test's server (the address names PUBLIC_URL). */
  readFeed(url: string | null, headers: Record<string, string> = {}): Promise<IcsAnswer> {
    return getIcs(`${this.t.url}${new URL(url ?? '').pathname}`, headers);
  }

  /** Reads one meeting's document with a user's token (none: without). */
  readMeeting(
    meetingId: string,
    user: SeededUser | null,
    headers: Record<string, string> = {},
  ): Promise<IcsAnswer> {
    return getIcs(`${this.t.url}/calendar/meetings/${meetingId}.ics`, {
      ...(user ? { authorization: `Bearer ${user.token}` } : {}),
      ...headers,
    });
  }

  /** Runs a `mutation(input: { meetingId }) { meeting { id } }` as `user`. */
  async act(mutation: string, meetingId: string, user: SeededUser): Promise<void> {
    await this.t.gql.data(
      `mutation ($id: UUID!) { ${mutation}(input: { meetingId: $id }) { meeting { id } } }`,
      { id: meetingId },
      user.token,
    );
  }
}
