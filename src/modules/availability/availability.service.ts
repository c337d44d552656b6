import DataLoader from 'dataloader';
import { ValidationFailedError } from '../../platform/shared/errors';
import { DAY_MS, mergeSpans, overlaps, type TimeSpan } from '../../platform/shared/time-zone';
import {
  type MeetingLoaders,
  type MeetingRecord,
  type Occurrence,
  OCCURRENCE_LIMITS,
  type OccurrenceLoaders,
  occurrencesOf,
  ParticipantStatus,
  requireWindow,
  Series,
} from '../meeting';
import {
  isVisibleUser,
  seesAvailabilityOf,
  type UserLoaders,
  userNotFound,
  type UserRecord,
} from '../user';
import type { BusyMeeting } from './availability.store';
import {
  AVAILABILITY_LIMITS,
  type FreeBusyArgs,
  type SuggestMeetingTimesInput,
} from './availability.inputs';
import { type Suggestion, suggestSlots } from './suggestions';
import type { StoreSet } from '../../platform/composition/context';
import type { AvailabilityStore } from './availability.store';

/** The stores availability works with. */
export type AvailabilityStores = StoreSet<{ availability: AvailabilityStore }>;
type Stores = AvailabilityStores;
export type AvailabilityLoaders = UserLoaders & MeetingLoaders & OccurrenceLoaders;
type Loaders = AvailabilityLoaders;

/** One user's busy time; null when they keep it to themselves. */
export interface FreeBusy {
  userId: string;
  busy: TimeSpan[] | null;
}

/** As many occurrences of one meeting as a window of free/busy can hold (a 62-day window). */
const OCCURRENCES_PER_WINDOW = 100_000;

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

const minutesOf = (time: string): number => {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
};

/** The occurrences of busy meeting `meeting` (its rule: `series`) in `window` that take place. */
const heldIn = (meeting: BusyMeeting, series: Series, window: TimeSpan): Occurrence[] =>
  occurrencesOf(
    meeting,
    meeting.edits,
    window.start,
    window.end,
    OCCURRENCES_PER_WINDOW,
    series,
  ).filter((occurrence) => !occurrence.cancelled);

/**
 * Who is free when: free/busy, the conflicts of a meeting's participants, and suggested times.
 * Busy time is what a user owns or has accepted that is pending or confirmed (occurrences
 * expanded, cancelled ones left out); a user who does not share it shows none, except to
 * themselves. Each answer reads users and busy meetings in a fixed number of statements.
 */
export class AvailabilityService {
  private conflictsLoader: DataLoader<string, FreeBusy[]> | null = null;

  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
  ) {}

  /** When each user is busy between from and to (ranges cut to the window). */
  async freeBusy(viewer: UserRecord, args: FreeBusyArgs): Promise<FreeBusy[]> {
    requireWindow(args.from, args.to, AVAILABILITY_LIMITS.windowDays);
    const ids = unique(args.userIds);
    const sharing = await this.sharing(viewer, ids);
    const window = { start: args.from, end: args.to };
    const busy = this.busyByUser(await this.stores.availability.busyMeetings(sharing, [window]), [
      window,
    ]);
    // What is shown is capped; suggestions and conflicts weigh all of it.
    return ids.map((userId) => ({
      userId,
      busy: sharing.includes(userId)
        ? (busy.get(userId) ?? []).slice(0, AVAILABILITY_LIMITS.rangesPerUser)
        : null,
    }));
  }

  /** The best times for the caller and the users to meet (see SuggestMeetingTimesInput). */
  async suggest(viewer: UserRecord, input: SuggestMeetingTimesInput): Promise<Suggestion[]> {
    requireWindow(input.from, input.to, AVAILABILITY_LIMITS.windowDays, 'input.to');
    const hours = input.workingHours ?? AVAILABILITY_LIMITS.workingHours;
    const [workStart, workEnd] = [minutesOf(hours.start), minutesOf(hours.end)];
    if (workEnd <= workStart) {
      throw ValidationFailedError.of('input.workingHours.end', 'TOO_SMALL');
    }
    const attendees = unique([viewer.id, ...input.userIds]);
    const sharing = await this.sharing(viewer, attendees);
    const window = { start: input.from, end: input.to };
    const busy = this.busyByUser(await this.stores.availability.busyMeetings(sharing, [window]), [
      window,
    ]);
    const percentage = input.minimumAttendeePercentage ?? 100;
    return suggestSlots(
      {
        from: input.from,
        to: input.to,
        notBefore: new Date(),
        timeZone: input.timeZone ?? 'UTC',
        durationMinutes: input.durationMinutes,
        workStart,
        workEnd,
        weekdays: new Set(input.weekdays ?? AVAILABILITY_LIMITS.weekdays),
        stepMinutes: input.stepMinutes ?? AVAILABILITY_LIMITS.step.default,
        minimumAttendees: Math.ceil((attendees.length * percentage) / 100),
        first: input.first ?? AVAILABILITY_LIMITS.first.default,
      },
      attendees.map((userId) => ({
        userId,
        busy: sharing.includes(userId) ? (busy.get(userId) ?? []) : null,
      })),
    );
  }

  /**
   * For each participant of a shown meeting who has not declined (and shares their time), the
   * busy ranges of their other meetings that overlap it: its next occurrence, for a series.
   * Batched: the conflicts of many meetings take one read of busy meetings.
   */
  conflicts(viewer: UserRecord, meetingId: string): Promise<FreeBusy[]> {
    this.conflictsLoader ??= new DataLoader((ids) => this.readConflicts(viewer, ids));
    return this.conflictsLoader.load(meetingId);
  }

  private async readConflicts(viewer: UserRecord, ids: readonly string[]): Promise<FreeBusy[][]> {
    const asked = await Promise.all(ids.map((id) => this.conflictQuestion(id)));
    const sharing = new Set(
      await this.sharing(
        viewer,
        unique(asked.flatMap((question) => question?.userIds ?? [])),
        false,
      ),
    );
    const windows = asked.flatMap((question) => (question ? [question.window] : []));
    const busy = await this.stores.availability.busyMeetings([...sharing], windows);
    return asked.map((question) => {
      if (!question) {
        return [];
      }
      const others = busy.filter((meeting) => meeting.id !== question.meetingId);
      const byUser = this.busyByUser(others, [question.window], false);
      return question.userIds
        .flatMap((userId) => {
          const ranges = sharing.has(userId) ? byUser.get(userId) : undefined;
          return ranges && ranges.length > 0
            ? [{ userId, busy: ranges.slice(0, AVAILABILITY_LIMITS.rangesPerUser) }]
            : [];
        })
        .slice(0, AVAILABILITY_LIMITS.conflictsShown);
    });
  }

  /** Whose conflicts a meeting has, and when: null when it no longer takes place. */
  private async conflictQuestion(
    meetingId: string,
  ): Promise<{ meetingId: string; userIds: string[]; window: TimeSpan } | null> {
    const meeting = await this.loaders.meetings.load(meetingId);
    if (!meeting) {
      return null;
    }
    const window = await this.nextTime(meeting);
    const participants = await this.loaders.participantsByMeeting.load(meetingId);
    const userIds = participants
      .filter((participant) => participant.status !== ParticipantStatus.DECLINED)
      .map((participant) => participant.userId);
    return window ? { meetingId, userIds, window } : null;
  }

  /** A meeting's time, or its series' next occurrence that has not ended (within a year). */
  private async nextTime(meeting: MeetingRecord): Promise<TimeSpan | null> {
    const edits =
      meeting.recurrence === null ? [] : await this.loaders.occurrenceChanges.load(meeting.id);
    if (meeting.recurrence === null) {
      const [only] = occurrencesOf(meeting, [], new Date(0), new Date(8.64e15), 1);
      return only ?? null;
    }
    const now = new Date();
    const later = new Date(now.getTime() + OCCURRENCE_LIMITS.windowDays * DAY_MS);
    return (
      occurrencesOf(meeting, edits, now, later, OCCURRENCE_LIMITS.count).find(
        (occurrence) => !occurrence.cancelled,
      ) ?? null
    );
  }

  /**
   * Of `ids` (visible users, else USER_NOT_FOUND when `strict`), those whose busy time the
   * viewer may see: the viewer's own, and that of users who share it.
   */
  private async sharing(
    viewer: UserRecord,
    ids: readonly string[],
    strict = true,
  ): Promise<string[]> {
    const users = await this.loaders.users.loadMany(ids);
    const shown: string[] = [];
    users.forEach((user, index) => {
      const visible = !(user instanceof Error) && isVisibleUser(user);
      if (!visible && strict) {
        throw userNotFound();
      }
      if (visible && seesAvailabilityOf(viewer, user)) {
        shown.push(ids[index] as string);
      }
    });
    return shown;
  }

  /**
   * Each user's busy ranges from `meetings` in `windows`, merged and sorted; cut to the windows
   * when `clip` (free/busy), whole occurrences otherwise (conflicts show the other meeting's time).
   */
  private busyByUser(
    meetings: readonly BusyMeeting[],
    windows: readonly TimeSpan[],
    clip = true,
  ): Map<string, TimeSpan[]> {
    const spans = new Map<string, TimeSpan[]>();
    for (const meeting of meetings) {
      // Its rule is parsed once, however many windows (a page of meetings' conflicts) it meets.
      const series = new Series(meeting);
      for (const window of windows) {
        for (const occurrence of heldIn(meeting, series, window)) {
          const span = clip
            ? {
                start: new Date(Math.max(occurrence.start.getTime(), window.start.getTime())),
                end: new Date(Math.min(occurrence.end.getTime(), window.end.getTime())),
              }
            : { start: occurrence.start, end: occurrence.end };
          if (!overlaps(span, window)) {
            continue;
          }
          for (const userId of meeting.userIds) {
            const list = spans.get(userId);
            if (list) {
              list.push(span);
            } else {
              spans.set(userId, [span]);
            }
          }
        }
      }
    }
    return new Map([...spans].map(([userId, list]) => [userId, mergeSpans(list)]));
  }
}
