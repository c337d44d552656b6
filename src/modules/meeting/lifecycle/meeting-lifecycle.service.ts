import { type MeetingChange, MeetingEventKind } from '../meeting-event';
import type { ParticipantRecord, ParticipantStatus } from '../participants';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationFailedError,
} from '../../../platform/shared/errors';
import type { UserRecord } from '../../user';
import { MeetingStatus } from '../meeting.entity';
import type {
  CancelMeetingInput,
  CompleteMeetingInput,
  LeaveMeetingInput,
  RemoveParticipantInput,
  RescheduleMeetingInput,
  UpdateMeetingInput,
} from './meeting-lifecycle.inputs';
import { EDITABLE_FIELDS, storedEdits, TIMING_FIELDS } from '../meeting.inputs';
import {
  type CancelOccurrenceInput,
  type MoveOccurrenceInput,
  type Occurrence,
  type OccurrenceChange,
  type OccurrenceChanged,
  type OccurrenceLoaders,
  Series,
  seriesBound,
} from '../schedule';
import { MINUTE_MS } from '../../../platform/shared/time-zone';
import {
  answerAfterReschedule,
  completionRefusal,
  managesMeeting,
  statusAfterDeparture,
} from '../meeting.rules';
import { requireVisibleUsers } from '../meeting.checks';
import { changeLocked, type Outcome, requireManager, requireOpen } from '../locked-change';
import { bookAgain } from '../resources';
import type { LockedMeeting, MeetingRecord } from '../meeting.store';
import type { MeetingStores } from '../meeting.service';
import type { MeetingLoaders } from '../meeting.store';

type Stores = MeetingStores;
type Loaders = MeetingLoaders & OccurrenceLoaders;

/** What a caller who left a meeting gets back: the meeting only while they can still see it. */
export interface Departure {
  meetingId: string;
  meeting: MeetingRecord | null;
}

const conflicts = {
  MEETING_CLOSED: 'The meeting is closed',
  MEETING_NOT_RECURRING: 'The meeting does not repeat',
  MEETING_NOT_CONFIRMED: 'Only a confirmed meeting can be completed',
  MEETING_NOT_STARTED: 'The meeting has not started yet',
} as const;
const conflict = (reason: keyof typeof conflicts) => new ConflictError(reason, conflicts[reason]);

/**
 * The meeting lifecycle after creation: edit, reschedule, cancel, complete, remove and leave
 * (docs/rest-contract.md §7). Each change runs in a transaction holding the meeting's row lock, so
 * changes and answers to one meeting take turns.
 */
export class MeetingLifecycleService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
    /** How many days ahead a series books its resources. */
    private readonly horizonDays: number,
  ) {}

  /** Changes the fields given; answers and status stay. Owner or admin, open meetings only. */
  update(viewer: UserRecord, input: UpdateMeetingInput): Promise<MeetingRecord> {
    const edits = storedEdits(input, EDITABLE_FIELDS);
    return this.change(viewer, input.meetingId, async ({ meeting }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_EDIT');
      requireOpen(meeting);
      await requireVisibleUsers(tx, [edits.appointedBy, edits.assignedTo]);
      // Subscribers hear of an edit even when it changes nothing, as ever.
      return {
        meeting: await tx.meetings.update(meeting, edits),
        change: { kind: MeetingEventKind.UPDATED },
      };
    });
  }

  /**
   * Moves the meeting in time (start, and the duration, zone or recurrence given); every guest
   * is asked again and the meeting is pending until they accept.
   */
  reschedule(viewer: UserRecord, input: RescheduleMeetingInput): Promise<MeetingRecord> {
    const moved = storedEdits(input, TIMING_FIELDS);
    return this.change(viewer, input.meetingId, async ({ meeting, participants }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_RESCHEDULE');
      requireOpen(meeting);
      const timing = { ...meeting, ...moved, startTime: input.startTime.toISOString() };
      // The same timing again (a retried request) must not throw the answers given since away.
      const unchanged = (field: (typeof TIMING_FIELDS)[number]): boolean =>
        field === 'startTime'
          ? Date.parse(timing.startTime) === Date.parse(meeting.startTime)
          : timing[field] === meeting[field];
      if (TIMING_FIELDS.every(unchanged)) {
        return { meeting };
      }
      const recurrenceEndsAt = seriesBound(timing, () =>
        ValidationFailedError.of('input.recurrence', 'INVALID_RECURRENCE'),
      );
      const byAnswer = new Map<ParticipantStatus, ParticipantRecord[]>();
      for (const participant of participants) {
        const answer = answerAfterReschedule(meeting.ownerId, participant);
        const asked = byAnswer.get(answer);
        if (asked) {
          asked.push(participant);
        } else {
          byAnswer.set(answer, [participant]);
        }
      }
      for (const [answer, asked] of byAnswer) {
        await tx.participants.setStatus(asked, answer);
      }
      // Occurrences changed one by one belonged to the series as it was.
      if (meeting.recurrence !== null) {
        await tx.occurrences.clear(meeting.id);
      }
      const rescheduled = await tx.meetings.update(meeting, {
        ...pick(timing, TIMING_FIELDS),
        recurrenceEndsAt: recurrenceEndsAt?.toISOString() ?? null,
        status: MeetingStatus.PENDING,
      });
      await bookAgain(tx, rescheduled, [], this.horizonDays);
      return { meeting: rescheduled, change: { kind: MeetingEventKind.RESCHEDULED } };
    });
  }

  /** Cancels one occurrence of a series; answers and the rest of the series stay. */
  cancelOccurrence(viewer: UserRecord, input: CancelOccurrenceInput): Promise<OccurrenceChanged> {
    return this.changeOccurrence(viewer, input, (edit) => ({ ...edit, cancelled: true }));
  }

  /**
   * Moves one occurrence of a series (a moved occurrence cancelled before takes place again);
   * moving it back to where the rule puts it undoes the move.
   */
  moveOccurrence(viewer: UserRecord, input: MoveOccurrenceInput): Promise<OccurrenceChanged> {
    const startTime =
      input.startTime.getTime() === input.originalStartTime.getTime() ? null : input.startTime;
    return this.changeOccurrence(viewer, input, () => ({ startTime, cancelled: false }));
  }

  private async changeOccurrence(
    viewer: UserRecord,
    input: CancelOccurrenceInput,
    edit: (
      was: Pick<OccurrenceChange, 'startTime' | 'cancelled'>,
    ) => Pick<OccurrenceChange, 'startTime' | 'cancelled'>,
  ): Promise<OccurrenceChanged> {
    const original = input.originalStartTime;
    let occurrence: Occurrence | undefined;
    const meeting = await this.change(viewer, input.meetingId, async ({ meeting }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_RESCHEDULE');
      requireOpen(meeting);
      if (meeting.recurrence === null) {
        throw conflict('MEETING_NOT_RECURRING');
      }
      if (!new Series(meeting).occursAt(original)) {
        throw new NotFoundError('OCCURRENCE_NOT_FOUND', 'The series has no such occurrence');
      }
      const edits = await tx.occurrences.ofMeetings([meeting.id]);
      const was = edits
        .get(meeting.id)
        ?.find((e) => Date.parse(e.originalStartTime) === original.getTime());
      const now = edit({
        startTime: was?.startTime ? new Date(was.startTime) : null,
        cancelled: was?.cancelled ?? false,
      });
      const saved = await tx.occurrences.put({
        meetingId: meeting.id,
        originalStartTime: original,
        ...now,
      });
      const others = (edits.get(meeting.id) ?? []).filter((e) => e !== was);
      await bookAgain(tx, meeting, [...others, saved], this.horizonDays);
      const start = saved.startTime ? new Date(saved.startTime) : original;
      occurrence = {
        start,
        end: new Date(start.getTime() + meeting.durationMinutes * MINUTE_MS),
        originalStart: original,
        cancelled: saved.cancelled,
      };
      // The meeting's row changes too, so readers see the series changed (updatedAt, sequence).
      return {
        meeting: await tx.meetings.update(meeting, {}, { touch: true }),
        change: { kind: MeetingEventKind.UPDATED },
      };
    });
    this.loaders.occurrenceChanges.clear(meeting.id);
    return { meeting, occurrence: occurrence as Occurrence };
  }

  /** Cancels a pending or confirmed meeting; cancelling again changes nothing. */
  cancel(viewer: UserRecord, input: CancelMeetingInput): Promise<MeetingRecord> {
    return this.change(viewer, input.meetingId, async ({ meeting }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_CANCEL');
      if (meeting.status === MeetingStatus.COMPLETED) {
        throw conflict('MEETING_CLOSED');
      }
      // Subscribers hear of it as the status change (a second cancel tells nobody).
      return { meeting: await tx.meetings.update(meeting, { status: MeetingStatus.CANCELLED }) };
    });
  }

  /** Marks a confirmed meeting that has started as held; completing again changes nothing. */
  complete(viewer: UserRecord, input: CompleteMeetingInput): Promise<MeetingRecord> {
    return this.change(viewer, input.meetingId, async ({ meeting }, tx) => {
      requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_COMPLETE');
      const refusal = completionRefusal(meeting, new Date());
      if (refusal) {
        throw conflict(refusal);
      }
      return { meeting: await tx.meetings.update(meeting, { status: MeetingStatus.COMPLETED }) };
    });
  }

  /** Takes a guest out of a meeting (never its owner); may confirm it. Owner or admin. */
  removeParticipant(viewer: UserRecord, input: RemoveParticipantInput): Promise<MeetingRecord> {
    const userId = input.userId;
    return this.change(viewer, input.meetingId, async (locked, tx) => {
      requireManager(viewer, locked.meeting, 'ONLY_MEETING_OWNER_CAN_REMOVE_PARTICIPANTS');
      requireOpen(locked.meeting);
      if (userId === locked.meeting.ownerId) {
        throw new ForbiddenError('CANNOT_REMOVE_OWNER', 'The owner cannot be removed');
      }
      const departed = await depart(tx, locked, userId);
      if (!departed) {
        throw new NotFoundError('PARTICIPANT_NOT_FOUND', 'The user is not a participant');
      }
      return departed;
    });
  }

  /** The caller, a guest, leaves the meeting; may confirm it. The owner cannot leave. */
  async leave(viewer: UserRecord, input: LeaveMeetingInput): Promise<Departure> {
    const meeting = await this.change(viewer, input.meetingId, async (locked, tx) => {
      if (!locked.participants.some((participant) => participant.userId === viewer.id)) {
        throw new ForbiddenError('NOT_A_PARTICIPANT', 'You are not a participant of this meeting');
      }
      requireOpen(locked.meeting);
      if (locked.meeting.ownerId === viewer.id) {
        throw new ForbiddenError('OWNER_CANNOT_LEAVE', 'The owner cannot leave their own meeting');
      }
      return (await depart(tx, locked, viewer.id)) ?? { meeting: locked.meeting };
    });
    // Having left, the caller sees the meeting only as an admin sees every meeting.
    return { meetingId: meeting.id, meeting: managesMeeting(viewer, meeting) ? meeting : null };
  }

  /** Runs `work` on the locked meeting (changeLocked), and books its time again if it moved. */
  private change(
    viewer: UserRecord,
    meetingId: string,
    work: (locked: LockedMeeting, tx: Stores) => Promise<Outcome>,
  ): Promise<MeetingRecord> {
    return changeLocked(this.stores, this.loaders, viewer, meetingId, work);
  }
}

/** Takes `userId` out of the locked meeting and settles its status; null if not a participant. */
async function depart(tx: Stores, locked: LockedMeeting, userId: string): Promise<Outcome | null> {
  const gone = locked.participants.find((participant) => participant.userId === userId);
  if (!gone) {
    return null;
  }
  await tx.participants.remove(gone);
  const { meeting } = locked;
  const remaining = locked.participants.filter((participant) => participant !== gone);
  return {
    meeting: await tx.meetings.update(meeting, {
      status: statusAfterDeparture(meeting.status, meeting.ownerId, remaining),
    }),
    change: removed(gone),
  };
}

/** A participant's departure, as the meeting's subscribers hear of it. */
const removed = (gone: ParticipantRecord): MeetingChange => ({
  kind: MeetingEventKind.PARTICIPANT_REMOVED,
  participantId: gone.id,
  userId: gone.userId,
});

/** The fields `keys` of a record. */
function pick<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, record[key]])) as Pick<T, K>;
}
