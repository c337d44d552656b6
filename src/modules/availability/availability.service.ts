import { answerReadsClock } from '../../platform/answer-cache/answer-cache';
import DataLoader from 'dataloader';
import { ValidationFailedError } from '../../platform/shared/errors';
import { DAY_MS, mergeSpans, type TimeSpan } from '../../platform/shared/time-zone';
import {
  type MeetingLoaders,
  type MeetingRecord,
  OCCURRENCE_LIMITS,
  type OccurrenceLoaders,
  occurrencesOf,
  ParticipantStatus,
  requireWindow,
} from '../meeting';
import {
  isVisibleUser,
  seesAvailabilityOf,
  type UserLoaders,
  userNotFound,
  type UserRecord,
  workingWeekOf,
} from '../user';
import {
  AVAILABILITY_LIMITS,
  type FreeBusyArgs,
  type SuggestMeetingTimesInput,
} from './availability.inputs';
import { type Suggestion, suggestSlots } from './suggestions';
import { resourceEntry, roomsFor } from './resource-time';
import { BusyKind, blockingSpans, type FreeBusy, flattenKinds, spansByUser } from './busy-time';
import { minutesOf, workingSpans } from './working-time';
import type { StoreSet } from '../../platform/composition/context';
import type { AvailabilityStore } from './availability.store';
import type { BookingStore, ResourceRecord } from '../resource';

/** The stores availability works with. */
export type AvailabilityStores = StoreSet<{
  availability: AvailabilityStore;
  bookings: BookingStore;
}>;
type Stores = AvailabilityStores;
export type AvailabilityLoaders = UserLoaders & MeetingLoaders & OccurrenceLoaders;
type Loaders = AvailabilityLoaders;

export type { FreeBusy } from './busy-time';

/** The users asked about whose availability the viewer may see, by id. */
type Shown = Map<string, UserRecord>;

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

/** A user's working hours within a window, as instants. */
const workingIn = (user: UserRecord, window: TimeSpan): TimeSpan[] =>
  workingSpans(user.timeZone, workingWeekOf(user), window);

/**
 * Who is free when: free/busy, the conflicts of a meeting's participants, and suggested times.
 * Busy time is what a user owns or has accepted that is pending or confirmed (occurrences
 * expanded, cancelled ones left out), their time away, and for free/busy their open invitations;
 * working hours are each user's week in their own zone. A user who does not share their
 * availability shows none of it, except to themselves. Each answer reads users, busy meetings and
 * time away in a fixed number of statements.
 */
export class AvailabilityService {
  private conflictsLoader: DataLoader<string, FreeBusy[]> | null = null;

  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
  ) {}

  /**
   * When each user is busy, and works, between from and to (ranges cut to the window); then when
   * each resource is booked, and may be used.
   */
  async freeBusy(viewer: UserRecord, args: FreeBusyArgs): Promise<FreeBusy[]> {
    requireWindow(args.from, args.to, AVAILABILITY_LIMITS.windowDays);
    const ids = unique(args.userIds);
    const resourceIds = unique(args.resourceIds ?? []);
    if (ids.length + resourceIds.length === 0) {
      throw ValidationFailedError.of('userIds', 'TOO_SHORT');
    }
    const shown = await this.sharing(viewer, ids);
    const window = { start: args.from, end: args.to };
    const [time, resources] = await Promise.all([
      this.stores.availability.busyTime([...shown.keys()], [window], { tentative: true }),
      this.stores.bookings.timeOf(resourceIds, window),
    ]);
    const busy = spansByUser(time, [window]);
    // What is shown is capped; suggestions and conflicts weigh all of it.
    const users = ids.map((userId): FreeBusy => {
      const user = shown.get(userId);
      return {
        userId,
        resourceId: null,
        busy: user
          ? flattenKinds(busy.get(userId) ?? []).slice(0, AVAILABILITY_LIMITS.rangesPerUser)
          : null,
        workingHours: user
          ? workingIn(user, window).slice(0, AVAILABILITY_LIMITS.rangesPerUser)
          : null,
      };
    });
    return [...users, ...resourceIds.map((id) => resourceEntry(resources, id, window))];
  }

  /** The best times for the caller and the users to meet (see SuggestMeetingTimesInput). */
  async suggest(
    viewer: UserRecord,
    input: SuggestMeetingTimesInput,
  ): Promise<Suggestion<ResourceRecord>[]> {
    requireWindow(input.from, input.to, AVAILABILITY_LIMITS.windowDays, 'input.to');
    const shared = input.workingHours
      ? {
          timeZone: input.timeZone ?? 'UTC',
          workStart: minutesOf(input.workingHours.start),
          workEnd: minutesOf(input.workingHours.end),
          weekdays: new Set<number>(input.weekdays ?? AVAILABILITY_LIMITS.weekdays),
        }
      : null;
    if (shared && shared.workEnd <= shared.workStart) {
      throw ValidationFailedError.of('input.workingHours.end', 'TOO_SMALL');
    }
    const attendees = unique([viewer.id, ...input.userIds]);
    const shown = await this.sharing(viewer, attendees);
    const window = { start: input.from, end: input.to };
    const [time, rooms] = await Promise.all([
      this.stores.availability.busyTime([...shown.keys()], [window]),
      input.room ? roomsFor(this.stores.bookings, input.room, attendees.length, window) : null,
    ]);
    const busy = spansByUser(time, [window]);
    const percentage = input.minimumAttendeePercentage ?? 100;
    // Most attendees keep the default week in a handful of zones: each week is placed once.
    const weeks = new Map<string, TimeSpan[]>();
    const working = (user: UserRecord): TimeSpan[] => {
      const key = `${user.timeZone} ${JSON.stringify(user.workingHours)}`;
      let spans = weeks.get(key);
      if (!spans) {
        spans = workingIn(user, window);
        weeks.set(key, spans);
      }
      return spans;
    };
    // Slots in the past are not suggested: the answer changes as time passes.
    answerReadsClock();
    return suggestSlots(
      {
        from: input.from,
        to: input.to,
        notBefore: new Date(),
        shared,
        durationMinutes: input.durationMinutes,
        stepMinutes: input.stepMinutes ?? AVAILABILITY_LIMITS.step.default,
        minimumAttendees: Math.ceil((attendees.length * percentage) / 100),
        first: input.first ?? AVAILABILITY_LIMITS.first.default,
      },
      attendees.map((userId) => {
        const user = shown.get(userId);
        return {
          userId,
          busy: user ? blockingSpans(busy.get(userId) ?? []) : null,
          working: user ? working(user) : null,
        };
      }),
      rooms,
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
    const sharing = await this.sharing(
      viewer,
      unique(asked.flatMap((question) => question?.userIds ?? [])),
      false,
    );
    const windows = asked.flatMap((question) => (question ? [question.window] : []));
    const { meetings } = await this.stores.availability.busyTime([...sharing.keys()], windows);
    return asked.map((question) => {
      if (!question) {
        return [];
      }
      const others = meetings.filter((meeting) => meeting.id !== question.meetingId);
      const byUser = spansByUser({ meetings: others, away: [] }, [question.window], false);
      return question.userIds
        .flatMap((userId) => {
          const ranges = sharing.has(userId) ? byUser.get(userId) : undefined;
          return ranges && ranges.length > 0
            ? [
                {
                  userId,
                  busy: mergeSpans(ranges)
                    .slice(0, AVAILABILITY_LIMITS.rangesPerUser)
                    .map((span) => ({ ...span, kind: BusyKind.BUSY })),
                  resourceId: null,
                  workingHours: null,
                },
              ]
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
    // The next occurrence from now: the answer changes as time passes.
    answerReadsClock();
    const now = new Date();
    const later = new Date(now.getTime() + OCCURRENCE_LIMITS.windowDays * DAY_MS);
    return (
      occurrencesOf(meeting, edits, now, later, OCCURRENCE_LIMITS.count).find(
        (occurrence) => !occurrence.cancelled,
      ) ?? null
    );
  }

  /**
   * Of `ids` (visible users, else USER_NOT_FOUND when `strict`), those whose availability the
   * viewer may see (the viewer's own, and that of users who share it), by id, in the order given.
   */
  private async sharing(viewer: UserRecord, ids: readonly string[], strict = true): Promise<Shown> {
    const users = await this.loaders.users.loadMany(ids);
    const shown: Shown = new Map();
    for (const user of users) {
      const visible = !(user instanceof Error) && isVisibleUser(user);
      if (!visible && strict) {
        throw userNotFound();
      }
      if (visible && seesAvailabilityOf(viewer, user)) {
        shown.set(user.id, user);
      }
    }
    return shown;
  }
}
