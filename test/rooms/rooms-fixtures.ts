import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * What the rooms tests share: making resources as an admin, meetings that book them, and the
 * mutations that book and move them, each answering the GraphQL response as it came.
 */

export interface RoomFields {
  name: string;
  capacity: number;
  building?: string | null;
  floor?: string | null;
  features?: string[];
  timeZone?: string;
  workingHours?: Array<{ weekday: string; start: string; end: string }> | null;
}

export interface Room extends Required<Omit<RoomFields, 'workingHours'>> {
  id: string;
  workingHours: RoomFields['workingHours'];
}

export const ROOM_FIELDS =
  'id name capacity building floor features timeZone workingHours { weekday start end }';

const CREATE_ROOM = `mutation ($input: CreateResourceInput!) { createResource(input: $input) { resource { ${ROOM_FIELDS} } } }`;
const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) { meeting { id resources { id name } } }
}`;
const RESCHEDULE = `mutation ($input: RescheduleMeetingInput!) { rescheduleMeeting(input: $input) { meeting { id startTime } } }`;
const ADD = `mutation ($meetingId: UUID!, $resourceId: UUID!) {
  addResource(input: { meetingId: $meetingId, resourceId: $resourceId }) { meeting { id resources { id } } }
}`;
const REMOVE = `mutation ($meetingId: UUID!, $resourceId: UUID!) {
  removeResource(input: { meetingId: $meetingId, resourceId: $resourceId }) { meeting { id resources { id } } }
}`;
const CANCEL = `mutation ($id: UUID!) { cancelMeeting(input: { meetingId: $id }) { meeting { id status } } }`;

/** A running app, an admin who keeps the rooms, and the mutations the tests call. */
export class Rooms {
  constructor(
    readonly t: TestApp,
    readonly admin: SeededUser,
  ) {}

  /** An app's admin: a seeded user given the role. */
  static async of(t: TestApp): Promise<Rooms> {
    const admin = await t.seed.user();
    await t.seed.update(admin, { roles: 'admin' as never });
    return new Rooms(t, admin);
  }

  /** A service of its own (with `env`), its admin, and three people who book. */
  static async start(
    env: Record<string, string> = {},
  ): Promise<{ rooms: Rooms; people: [SeededUser, SeededUser, SeededUser] }> {
    const t = await startTestApp(env);
    const rooms = await Rooms.of(t);
    return { rooms, people: (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser] };
  }

  async room(fields: RoomFields): Promise<Room> {
    const data = await this.t.gql.data<{ createResource: { resource: Room } }>(
      CREATE_ROOM,
      { input: fields },
      this.admin.token,
    );
    return data.createResource.resource;
  }

  createRoom(fields: RoomFields, user: SeededUser) {
    return this.t.gql.request<{ createResource: { resource: Room } }>(
      CREATE_ROOM,
      { input: fields },
      user.token,
    );
  }

  /** Creates a meeting of `owner` (inviting `guest`) booking `resourceIds`: the answer as it came. */
  meeting(
    owner: SeededUser,
    guest: SeededUser,
    fields: Record<string, unknown>,
    resourceIds: readonly string[] = [],
  ) {
    return this.t.gql.request<{
      createMeeting: { meeting: { id: string; resources: Array<{ id: string; name: string }> } };
    }>(
      CREATE_MEETING,
      {
        meeting: { title: 'Room booking test', location: 'Main office', resourceIds, ...fields },
        participants: [{ userId: guest.id }],
      },
      owner.token,
    );
  }

  /** A meeting's id, which must have been created. */
  async meetingId(
    owner: SeededUser,
    guest: SeededUser,
    fields: Record<string, unknown>,
    resourceIds: readonly string[] = [],
  ): Promise<string> {
    const answer = await this.meeting(owner, guest, fields, resourceIds);
    expect(answer.errors).toBeUndefined();
    return answer.data?.createMeeting.meeting.id as string;
  }

  reschedule(owner: SeededUser, input: Record<string, unknown>) {
    return this.t.gql.request(RESCHEDULE, { input }, owner.token);
  }

  add(owner: SeededUser, meetingId: string, resourceId: string) {
    return this.t.gql.request<{
      addResource: { meeting: { id: string; resources: Array<{ id: string }> } };
    }>(ADD, { meetingId, resourceId }, owner.token);
  }

  remove(owner: SeededUser, meetingId: string, resourceId: string) {
    return this.t.gql.request(REMOVE, { meetingId, resourceId }, owner.token);
  }

  cancel(owner: SeededUser, meetingId: string) {
    return this.t.gql.request(CANCEL, { id: meetingId }, owner.token);
  }
}

/** An instant `days` days and `hours` hours after the next midnight UTC at least a day away. */
export function later(days: number, hours = 0, minutes = 0): string {
  const base = new Date();
  base.setUTCHours(0, 0, 0, 0);
  return new Date(
    base.getTime() + ((days + 1) * 24 + hours) * 3_600_000 + minutes * 60_000,
  ).toISOString();
}

const CANCEL_OCCURRENCE = `mutation ($input: CancelOccurrenceInput!) { cancelOccurrence(input: $input) { meeting { id } } }`;
const MOVE_OCCURRENCE = `mutation ($input: MoveOccurrenceInput!) { moveOccurrence(input: $input) { meeting { id } } }`;

/** Cancels or moves one occurrence of a series (the answer as it came). */
export function occurrenceChange(
  t: TestApp,
  owner: SeededUser,
  input: { meetingId: string; originalStartTime: string; startTime?: string },
) {
  return t.gql.request(
    input.startTime ? MOVE_OCCURRENCE : CANCEL_OCCURRENCE,
    { input },
    owner.token,
  );
}
