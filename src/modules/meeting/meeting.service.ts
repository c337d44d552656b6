import { onUniqueViolation } from '../../platform/shared/db-errors';
import {
  type AppError,
  ConflictError,
  ForbiddenError,
  ValidationFailedError,
} from '../../platform/shared/errors';
import { type ConnectionResult, toConnection } from '../../platform/graphql/connection';
import type { SliceRequest } from '../../platform/sql/keyset';
import type { Page } from '../../platform/shared/pagination';
import { type MeetingChange, MeetingEventKind, meetingNotices } from './meeting-event';
import { ParticipantStatus } from './participants/participant.entity';
import {
  type InvitationFilter,
  newParticipant,
  type ParticipantRecord,
} from './participants/participant.store';
import { type UserLoaders, userNotFound, type UserRecord } from '../user';
import { MeetingStatus } from './meeting.entity';
import { type AddParticipantInput, type CreateMeetingInput, storedFields } from './meeting.inputs';
import { isClosed, managesMeeting, seesMeeting, statusAfterAnswers } from './meeting.rules';
import { seriesBound } from './schedule/recurrence.rules';
import type { MeetingFilter, MeetingRecord } from './meeting.store';
import type { MeetingLoaders } from './meeting.store';
import {
  lockVisible,
  meetingNotFound,
  requireResources,
  requireVisibleUsers,
} from './meeting.checks';
import { refusingOverlaps, type ResourceLoaders } from '../resource';
import { bookingPlan, freeIfCancelled } from './resources/booking-plan';
import type { MeetingStores } from './meeting.stores';

export type { MeetingStores } from './meeting.stores';
type Stores = MeetingStores;
export type MeetingServiceLoaders = Pick<UserLoaders, 'primeUsers'> &
  MeetingLoaders &
  Pick<ResourceLoaders, 'resources'>;
type Loaders = MeetingServiceLoaders;

/** A meeting (null: gone) as one statement read it, with its participants and their users. */
export interface MeetingSnapshot {
  meeting: MeetingRecord | null;
  participants: ParticipantRecord[];
  users: UserRecord[];
}

/** A meeting with its participants and their users, read in one statement. */
export async function readSnapshot(
  store: Pick<MeetingStores['meetings'], 'withParticipants'>,
  meetingId: string,
): Promise<MeetingSnapshot> {
  const found = await store.withParticipants([meetingId]);
  return {
    meeting: found.meetings[0] ?? null,
    participants: found.byMeeting.get(meetingId) ?? [],
    users: found.users,
  };
}

/** A guest's arrival, as the meeting's subscribers and the guest's invitations hear of it. */
const added = (guest: Pick<ParticipantRecord, 'id' | 'userId'>): MeetingChange => ({
  kind: MeetingEventKind.PARTICIPANT_ADDED,
  participantId: guest.id,
  userId: guest.userId,
});

const meetingClosed = () => new ConflictError('MEETING_CLOSED', 'The meeting is closed');
const ownerCannotDecline = () =>
  new ForbiddenError('OWNER_CANNOT_DECLINE', 'The owner cannot decline their own meeting');
const alreadyParticipant = () =>
  new ConflictError('USER_ALREADY_A_PARTICIPANT', 'The user is already a participant');
const meetingFull = (cap: number) =>
  new ConflictError('MEETING_FULL', `A meeting holds at most ${cap} participants`);

export class MeetingService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
    /** The most participants a meeting holds, the owner included. */
    private readonly maxParticipants: number,
    /** How many days ahead a series books its resources. */
    private readonly horizonDays: number,
  ) {}

  /** A meeting the viewer may see (owner, participant, admin); anyone else is told it does not exist. */
  async get(viewer: UserRecord, meetingId: string): Promise<MeetingRecord> {
    const meeting = await this.visible(viewer, meetingId);
    if (!meeting) {
      throw meetingNotFound();
    }
    return meeting;
  }

  /** The meeting if the viewer may see it, else null (unknown or not theirs alike). */
  async visible(viewer: UserRecord, meetingId: string): Promise<MeetingRecord | null> {
    const meeting = await this.loaders.meetings.load(meetingId);
    // Owners and admins need no participant list to be let in.
    return meeting &&
      (managesMeeting(viewer, meeting) ||
        seesMeeting(viewer, meeting, await this.loaders.participantsByMeeting.load(meetingId)))
      ? meeting
      : null;
  }

  /**
   * A meeting with its participants and their users, read now past this request's loaders (one
   * statement): a read other requests may share (`adopt`).
   */
  snapshot(meetingId: string): Promise<MeetingSnapshot> {
    return readSnapshot(this.stores.meetings, meetingId);
  }

  /** Takes a meeting's `snapshot` as this request's read of it: its loaders answer from it. */
  adopt(meetingId: string, snapshot: MeetingSnapshot): void {
    this.loaders.meetings.prime(meetingId, snapshot.meeting);
    this.loaders.participantsByMeeting.prime(meetingId, snapshot.participants);
    this.loaders.primeUsers(snapshot.users);
  }

  /** Meetings the viewer owns or has accepted, latest start first. */
  listMine(viewer: UserRecord, page: Page): Promise<MeetingRecord[]> {
    return this.stores.meetings.ownedOrAccepted(viewer.id, page);
  }

  /** The viewer's unanswered invitations to meetings still open, newest first. */
  requests(viewer: UserRecord, page: Page): Promise<ParticipantRecord[]> {
    return this.stores.participants.requests(viewer.id, page);
  }

  /** A slice of the meetings the viewer owns or is invited to. */
  async slice(
    viewer: UserRecord,
    filter: MeetingFilter,
    request: SliceRequest,
  ): Promise<ConnectionResult<MeetingRecord>> {
    const { slice, count } = await this.stores.meetings.slice(viewer.id, filter, request);
    return toConnection(slice, count);
  }

  /** A slice of the viewer's invitations to others' meetings, newest first. */
  async invitations(
    viewer: UserRecord,
    filter: InvitationFilter,
    request: SliceRequest,
  ): Promise<ConnectionResult<ParticipantRecord>> {
    const found = await this.stores.participants.sliceOfInvitations(viewer.id, filter, request);
    return toConnection(found.slice, found.count);
  }

  /**
   * A slice of a meeting's participants (the meeting was shown, so the viewer may see them):
   * through loaders, so the same field on many meetings reads them all in one statement.
   */
  async participants(
    meetingId: string,
    statuses: readonly ParticipantStatus[] | null,
    request: SliceRequest,
  ): Promise<ConnectionResult<ParticipantRecord>> {
    const list = { meetingId, statuses };
    const { slice } = await this.loaders.participantSlices.load({ ...list, request });
    return toConnection(slice, () => this.loaders.participantCounts.load(list));
  }

  /** Creates a pending meeting with the owner as an accepted participant and the invited users. */
  async create(viewer: UserRecord, args: CreateMeetingInput): Promise<MeetingRecord> {
    const invited = args.participants.map((participant) => participant.userId);
    const problems: Record<string, 'INVALID_CHOICE'> = {};
    invited.forEach((userId, index) => {
      if (userId === viewer.id || invited.indexOf(userId) !== index) {
        problems[`participants.${index}.userId`] = 'INVALID_CHOICE';
      }
    });
    if (Object.keys(problems).length > 0) {
      throw new ValidationFailedError(problems);
    }
    // The owner is a participant too.
    if (invited.length + 1 > this.maxParticipants) {
      throw meetingFull(this.maxParticipants);
    }
    const { meeting: input } = args;
    const appointedBy = input.appointedBy ?? null;
    const assignedTo = input.assignedTo ?? null;
    await requireVisibleUsers(this.stores, [...invited, appointedBy, assignedTo]);
    const fields = storedFields(input);
    const recurrenceEndsAt = seriesBound(fields, () =>
      ValidationFailedError.of('meeting.recurrence', 'INVALID_RECURRENCE'),
    );
    const resourceIds = input.resourceIds ?? [];
    await requireResources(this.loaders, resourceIds);
    return refusingOverlaps(this.stores.resources, () =>
      this.stores.transaction(async (tx) => {
        const created = await tx.meetings.create({
          ...fields,
          recurrenceEndsAt,
          ownerId: viewer.id,
        });
        // Explicit timestamps keep the owner first and the guests in the order given.
        const start = Date.parse(created.createdAt);
        const at = (offset: number) => new Date(start + offset).toISOString();
        const owner = newParticipant(
          { meetingId: created.id, userId: viewer.id, status: ParticipantStatus.ACCEPTED },
          at(0),
        );
        const guests = args.participants.map((participant, index) =>
          newParticipant(
            {
              meetingId: created.id,
              userId: invited[index] as string,
              status: participant.status ?? ParticipantStatus.NEW,
            },
            at(1 + index),
          ),
        );
        // Logged first: the log's append rides on the participants' insert.
        await tx.events.append(
          meetingNotices(
            created.id,
            guests.map((guest) => added(guest)),
            { before: created.status, after: created.status },
          ),
        );
        await tx.participants.add(owner, ...guests);
        if (resourceIds.length > 0) {
          const plan = bookingPlan(
            { ...created, recurrenceEndsAt: recurrenceEndsAt?.toISOString() ?? null },
            [],
            new Date(),
            this.horizonDays,
          );
          await tx.bookings.attach(created.id, resourceIds, plan.spans, plan.bookedUntil);
        }
        return created;
      }),
    );
  }

  /** Adds a user to a meeting; only its owner (or an admin) may. */
  async addParticipant(viewer: UserRecord, args: AddParticipantInput): Promise<ParticipantRecord> {
    const userId = args.userId;
    const status = args.status ?? ParticipantStatus.NEW;
    const participant = await onUniqueViolation(
      () =>
        this.stores.transaction(async (tx) => {
          const { meeting, participants, user } = await lockVisible(
            tx,
            viewer,
            args.meetingId,
            () => tx.participants.ofLockedWithUser(args.meetingId, userId),
          );
          if (!managesMeeting(viewer, meeting)) {
            throw new ForbiddenError(
              'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS',
              'Only the meeting owner can add participants',
            );
          }
          if (isClosed(meeting)) {
            throw meetingClosed();
          }
          if (!user) {
            throw userNotFound();
          }
          if (participants.some((existing) => existing.userId === userId)) {
            throw alreadyParticipant();
          }
          // Race-safe: the meeting's row is locked, and its participants were read after the lock.
          if (participants.length >= this.maxParticipants) {
            throw meetingFull(this.maxParticipants);
          }
          const guest = newParticipant({ meetingId: meeting.id, userId, status });
          // A confirmed meeting waits again for a guest who has not accepted.
          const after =
            meeting.status === MeetingStatus.CONFIRMED && status !== ParticipantStatus.ACCEPTED
              ? MeetingStatus.PENDING
              : meeting.status;
          // Logged first: the log's append rides on the insert (ChangeLogStore.append).
          await tx.events.append(
            meetingNotices(meeting.id, [added(guest)], { before: meeting.status, after }),
          );
          await tx.participants.add(guest);
          await tx.meetings.update(meeting, { status: after });
          // The added user is usually shown with the answer: no second read.
          this.loaders.primeUsers([user]);
          return guest;
        }),
      { participants_meeting_user_unique: alreadyParticipant },
    );
    this.loaders.forgetMeeting(args.meetingId);
    return participant;
  }

  /** The viewer accepts; once everyone has, the meeting is confirmed. Repeating changes nothing. */
  approve(viewer: UserRecord, meetingId: string): Promise<MeetingRecord> {
    return this.answer(viewer, meetingId, ParticipantStatus.ACCEPTED);
  }

  /**
   * The viewer declines; once every guest has, the meeting is cancelled. `reason`: why, when the
   * service declines for the viewer (their out-of-office period's title); null when they do.
   */
  decline(
    viewer: UserRecord,
    meetingId: string,
    reason: string | null = null,
  ): Promise<MeetingRecord> {
    return this.answer(viewer, meetingId, ParticipantStatus.DECLINED, reason);
  }

  private async answer(
    viewer: UserRecord,
    meetingId: string,
    status: ParticipantStatus,
    reason: string | null = null,
  ): Promise<MeetingRecord> {
    const meeting = await this.stores.transaction(async (tx) => {
      // The answer is written by the participants' read unless the meeting refuses it (a viewer
      // who is no participant matches no row); answering again the same way writes nothing.
      const locked = await lockVisible(tx, viewer, meetingId, (found) =>
        tx.participants.ofLockedAnswering(
          meetingId,
          viewer.id,
          { status, reason },
          !answerRefusal(viewer, found, status),
        ),
      );
      const mine = locked.participants.find((participant) => participant.userId === viewer.id);
      if (!mine) {
        throw new ForbiddenError('NOT_A_PARTICIPANT', 'You are not a participant of this meeting');
      }
      const refusal = answerRefusal(viewer, locked.meeting, status);
      if (refusal) {
        throw refusal();
      }
      const answers = locked.participants.map((participant) =>
        participant === mine ? { ...participant, status } : participant,
      );
      const after = statusAfterAnswers(locked.meeting.status, locked.meeting.ownerId, answers);
      const answered: MeetingChange[] =
        mine.status === status
          ? []
          : [
              {
                kind: MeetingEventKind.PARTICIPANT_ANSWERED,
                participantId: mine.id,
                userId: mine.userId,
              },
            ];
      // Logged first: the log's append rides on the status write, if there is one.
      await tx.events.append(
        meetingNotices(locked.meeting.id, answered, { before: locked.meeting.status, after }),
      );
      const answeredMeeting = await tx.meetings.update(locked.meeting, { status: after });
      await freeIfCancelled(tx, locked.meeting, answeredMeeting);
      return answeredMeeting;
    });
    this.loaders.forgetMeeting(meetingId);
    return meeting;
  }
}

/** Why the meeting itself refuses the viewer's answer (closed; the owner declining), or null. */
function answerRefusal(
  viewer: UserRecord,
  meeting: MeetingRecord,
  status: ParticipantStatus,
): (() => AppError) | null {
  if (isClosed(meeting)) {
    return meetingClosed;
  }
  return status === ParticipantStatus.DECLINED && meeting.ownerId === viewer.id
    ? ownerCannotDecline
    : null;
}
