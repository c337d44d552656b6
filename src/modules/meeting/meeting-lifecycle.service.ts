import { toReadModel } from '../../db/read-model';
import { type MeetingChange, MeetingEventKind, meetingNotices } from '../../events/meeting-event';
import type { Loaders } from '../../loaders';
import type { Participant } from '../participant/participant.entity';
import { ConflictError, ForbiddenError, NotFoundError } from '../../shared/errors';
import type { Stores } from '../../stores';
import type { UserRecord } from '../user/user.store';
import { type Meeting, MeetingStatus, MeetingType } from './meeting.entity';
import type {
  CancelMeetingInput,
  CompleteMeetingInput,
  LeaveMeetingInput,
  RemoveParticipantInput,
  RescheduleMeetingInput,
  UpdateMeetingInput,
} from './meeting-lifecycle.inputs';
import {
  answerAfterReschedule,
  completionRefusal,
  isClosed,
  managesMeeting,
  statusAfterDeparture,
} from './meeting.rules';
import { lockVisible, requireVisibleUsers } from './meeting.service';
import type { LockedMeeting, MeetingRecord } from './meeting.store';

/** The columns an edit writes. */
type MeetingEdits = Partial<
  Pick<Meeting, 'title' | 'type' | 'location' | 'locationUrl' | 'appointedBy' | 'assignedTo'>
>;

/** What a caller who left a meeting gets back: the meeting only while they can still see it. */
export interface Departure {
  meetingId: string;
  meeting: MeetingRecord | null;
}

const conflicts = {
  MEETING_CLOSED: 'The meeting is closed',
  MEETING_NOT_CONFIRMED: 'Only a confirmed meeting can be completed',
  MEETING_NOT_STARTED: 'The meeting has not started yet',
} as const;
const conflict = (reason: keyof typeof conflicts) => new ConflictError(reason, conflicts[reason]);

/** Refuses a caller who sees the meeting but neither owns it nor is an admin. */
function requireManager(viewer: UserRecord, meeting: Meeting, reason: string): void {
  if (!managesMeeting(viewer, meeting)) {
    throw new ForbiddenError(reason, 'Only the meeting owner can do this');
  }
}

function requireOpen(meeting: Meeting): void {
  if (isClosed(meeting)) {
    throw conflict('MEETING_CLOSED');
  }
}

/** What an edit writes: the fields given, trimmed and lower-cased as createMeeting stores them. */
function editsOf(input: UpdateMeetingInput): MeetingEdits {
  const edits: MeetingEdits = {};
  if (input.title !== undefined) {
    edits.title = input.title.trim();
  }
  if (input.location !== undefined) {
    edits.location = input.location.trim();
  }
  if (input.type !== undefined) {
    edits.type = input.type ?? MeetingType.ALL_HANDS;
  }
  if (input.locationUrl !== undefined) {
    edits.locationUrl = input.locationUrl;
  }
  if (input.appointedBy !== undefined) {
    edits.appointedBy = input.appointedBy ?? null;
  }
  if (input.assignedTo !== undefined) {
    edits.assignedTo = input.assignedTo ?? null;
  }
  return edits;
}

/**
 * The meeting lifecycle after creation: edit, reschedule, cancel, complete, remove and leave
 * (CONTRACT.md §7). Each change runs in a transaction holding the meeting's row lock, so changes
 * and answers to one meeting take turns.
 */
export class MeetingLifecycleService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
  ) {}

  /** Changes the fields given; answers and status stay. Owner or admin, open meetings only. */
  update(viewer: UserRecord, input: UpdateMeetingInput): Promise<MeetingRecord> {
    const edits = editsOf(input);
    return this.change(viewer, input.meetingId, async ({ meeting }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_EDIT');
      requireOpen(meeting);
      await requireVisibleUsers(tx, [edits.appointedBy, edits.assignedTo]);
      Object.assign(meeting, edits);
      return { kind: MeetingEventKind.UPDATED };
    });
  }

  /** Moves the start; every guest is asked again and the meeting is pending until they accept. */
  reschedule(viewer: UserRecord, input: RescheduleMeetingInput): Promise<MeetingRecord> {
    const { startTime } = input;
    return this.change(viewer, input.meetingId, ({ meeting, participants }) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_RESCHEDULE');
      requireOpen(meeting);
      // The same start again (a retried request) must not throw the answers given since away.
      if (meeting.startTime.getTime() === startTime.getTime()) {
        return null;
      }
      meeting.startTime = startTime;
      for (const participant of participants) {
        participant.status = answerAfterReschedule(meeting.ownerId, participant);
      }
      meeting.status = MeetingStatus.PENDING;
      return { kind: MeetingEventKind.RESCHEDULED };
    });
  }

  /** Cancels a pending or confirmed meeting; cancelling again changes nothing. */
  cancel(viewer: UserRecord, input: CancelMeetingInput): Promise<MeetingRecord> {
    return this.change(viewer, input.meetingId, ({ meeting }) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_CANCEL');
      if (meeting.status === MeetingStatus.COMPLETED) {
        throw conflict('MEETING_CLOSED');
      }
      // Subscribers hear of it as the status change (a second cancel tells nobody).
      meeting.status = MeetingStatus.CANCELLED;
      return null;
    });
  }

  /** Marks a confirmed meeting that has started as held; completing again changes nothing. */
  complete(viewer: UserRecord, input: CompleteMeetingInput): Promise<MeetingRecord> {
    return this.change(viewer, input.meetingId, ({ meeting }) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_COMPLETE');
      const refusal = completionRefusal(meeting, new Date());
      if (refusal) {
        throw conflict(refusal);
      }
      meeting.status = MeetingStatus.COMPLETED;
      return null;
    });
  }

  /** Takes a guest out of a meeting (never its owner); may confirm it. Owner or admin. */
  removeParticipant(viewer: UserRecord, input: RemoveParticipantInput): Promise<MeetingRecord> {
    const userId = input.userId;
    return this.change(viewer, input.meetingId, (locked, tx) => {
      requireManager(viewer, locked.meeting, 'ONLY_MEETING_OWNER_CAN_REMOVE_PARTICIPANTS');
      requireOpen(locked.meeting);
      if (userId === locked.meeting.ownerId) {
        throw new ForbiddenError('CANNOT_REMOVE_OWNER', 'The owner cannot be removed');
      }
      const gone = depart(tx, locked, userId);
      if (!gone) {
        throw new NotFoundError('PARTICIPANT_NOT_FOUND', 'The user is not a participant');
      }
      return removed(gone);
    });
  }

  /** The caller, a guest, leaves the meeting; may confirm it. The owner cannot leave. */
  async leave(viewer: UserRecord, input: LeaveMeetingInput): Promise<Departure> {
    const meeting = await this.change(viewer, input.meetingId, (locked, tx) => {
      if (!locked.participants.some((participant) => participant.userId === viewer.id)) {
        throw new ForbiddenError('NOT_A_PARTICIPANT', 'You are not a participant of this meeting');
      }
      requireOpen(locked.meeting);
      if (locked.meeting.ownerId === viewer.id) {
        throw new ForbiddenError('OWNER_CANNOT_LEAVE', 'The owner cannot leave their own meeting');
      }
      const gone = depart(tx, locked, viewer.id);
      return gone && removed(gone);
    });
    // Having left, the caller sees the meeting only as an admin sees every meeting.
    return { meetingId: meeting.id, meeting: managesMeeting(viewer, meeting) ? meeting : null };
  }

  /**
   * Locks the meeting, lets `work` check and change it, commits, and answers it as it now is. A
   * meeting the viewer cannot see does not exist for them. `work` reports the change it made
   * (null: none besides the status), which subscribers hear of when the transaction commits.
   * Cached reads of the meeting are dropped.
   */
  private async change(
    viewer: UserRecord,
    meetingId: string,
    work: (
      locked: LockedMeeting,
      tx: Stores,
    ) => Promise<MeetingChange | null> | MeetingChange | null,
  ): Promise<MeetingRecord> {
    const meeting = await this.stores.transaction(async (tx) => {
      const locked = await lockVisible(tx, viewer, meetingId);
      const before = locked.meeting.status;
      const change = await work(locked, tx);
      await tx.events.publish(
        meetingNotices(locked.meeting.id, change ? [change] : [], {
          before,
          after: locked.meeting.status,
        }),
      );
      return locked.meeting;
    });
    this.loaders.forgetMeeting(meetingId);
    return toReadModel(meeting);
  }
}

/** Takes `userId` out of the locked meeting and settles its status; null if not a participant. */
function depart(tx: Stores, locked: LockedMeeting, userId: string): Participant | null {
  const index = locked.participants.findIndex((participant) => participant.userId === userId);
  const [gone] = index < 0 ? [] : locked.participants.splice(index, 1);
  if (!gone) {
    return null;
  }
  tx.participants.remove(gone);
  const { meeting } = locked;
  meeting.status = statusAfterDeparture(meeting.status, meeting.ownerId, locked.participants);
  return gone;
}

/** A participant's departure, as the meeting's subscribers hear of it. */
const removed = (gone: Participant): MeetingChange => ({
  kind: MeetingEventKind.PARTICIPANT_REMOVED,
  participantId: gone.id,
  userId: gone.userId,
});
