import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { Context } from './availability.context';
import { Viewer } from '../../platform/auth/tokens';
import type { UserRecord } from '../user';
import {
  AddParticipantPayload,
  CreateMeetingPayload,
  Meeting,
  type MeetingRecord,
  RescheduleMeetingPayload,
} from '../meeting';
import type { FreeBusy } from './availability.service';
import { MaxItems } from '../../platform/graphql/list-size';
import { Cost } from '../../platform/graphql/field-cost';
import {
  FREE_BUSY_COST_RULE,
  freeBusyCost,
  SUGGESTION_COST_RULE,
  suggestionCost,
} from './availability.cost';
import { AVAILABILITY_LIMITS, FreeBusyArgs, SuggestMeetingTimesArgs } from './availability.inputs';
import { type TimeRange, TimeSuggestion, UserFreeBusy } from './availability.types';
import type { TimeSpan } from '../../platform/shared/time-zone';
import { RESOURCE_LIMITS } from '../resource';

/** A span as the schema shows it: instants as ISO 8601 text. */
const range = (span: TimeSpan): TimeRange => ({
  start: span.start.toISOString(),
  end: span.end.toISOString(),
});

/** Busy time and working hours as the schema shows them. */
const shown = ({ userId, resourceId, busy, workingHours }: FreeBusy): UserFreeBusy => ({
  userId,
  resourceId,
  busy: busy?.map((span) => ({ ...range(span), kind: span.kind })) ?? null,
  workingHours: workingHours?.map(range) ?? null,
});

const CONFLICTS =
  'For each participant who has not declined and shares their availability, their busy ' +
  'ranges (other meetings) that overlap this meeting, or its next occurrence for a series; ' +
  `at most ${AVAILABILITY_LIMITS.conflictsShown} participants, in the order they were added. ` +
  'Warnings only: nothing is refused for them.';

@Resolver()
export class AvailabilityResolver {
  @Authorized()
  @Cost(freeBusyCost, FREE_BUSY_COST_RULE)
  @MaxItems(AVAILABILITY_LIMITS.users + RESOURCE_LIMITS.freeBusy)
  @Query(() => [UserFreeBusy], {
    description:
      'When each user (visible, else USER_NOT_FOUND; at most 50) is busy between from and to ' +
      '(at most 62 days): meetings they own or accepted that are pending or confirmed (BUSY), ' +
      'invitations they have not answered (TENTATIVE), occurrences expanded and cancelled ones ' +
      'left out, and their time away (OUT_OF_OFFICE, FOCUS), cut to the window, merged and ' +
      'sorted; and when they work (their working hours as instants). Titles never show; a user ' +
      'who does not share their availability answers busy: null, workingHours: null. Then ' +
      `each resource asked about (resourceIds, at most ${RESOURCE_LIMITS.freeBusy}): its ` +
      'bookings (BUSY) and its working hours (null: any time). Up to four statements, however ' +
      'many users and resources.',
  })
  async freeBusy(
    @Args() args: FreeBusyArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UserFreeBusy[]> {
    return (await ctx.services.availability.freeBusy(viewer, args)).map(shown);
  }

  @Authorized()
  @Cost(suggestionCost, SUGGESTION_COST_RULE)
  @MaxItems(AVAILABILITY_LIMITS.first.max)
  @Query(() => [TimeSuggestion], {
    description:
      'Times the caller and the users could meet, every stepMinutes, where at least ' +
      'minimumAttendeePercentage of the attendees are available: free (no meeting they own or ' +
      'accepted, no time away) and within their own working hours in their own time zone ' +
      '(across daylight-saving changes); most attendees first, then earliest. Given ' +
      'workingHours, one window for all instead: those hours on the weekdays given, in ' +
      'timeZone, where free is enough. A user who does not share their availability counts as ' +
      'free and within their hours. With room, each slot comes with a free room that fits ' +
      '(see SuggestMeetingTimesInput.room); slots without one are left out.',
  })
  async suggestMeetingTimes(
    @Args() { input }: SuggestMeetingTimesArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<TimeSuggestion[]> {
    const found = await ctx.services.availability.suggest(viewer, input);
    return found.map((slot) => ({
      startTime: slot.start.toISOString(),
      endTime: slot.end.toISOString(),
      availableUserIds: slot.available,
      unavailableUserIds: slot.unavailable,
      attendees: slot.attendees,
      room: slot.room,
    }));
  }
}

/** Which meeting a root's conflicts are of, and whose (all participants' when no user). */
interface ConflictsOf {
  meetingId: string;
  userId?: string;
}

/** A resolver of the `conflicts` field of `type`, whose roots name their meeting by `of`. */
function conflictsResolver<Root extends object>(
  type: abstract new () => object,
  of: (root: Root) => ConflictsOf,
  description: string,
) {
  @Resolver(() => type)
  class ConflictsResolver {
    @Authorized()
    @MaxItems(AVAILABILITY_LIMITS.conflictsShown)
    @FieldResolver(() => [UserFreeBusy], { description })
    async conflicts(
      @Root() root: Root,
      @Viewer() viewer: UserRecord,
      @Ctx() ctx: Context,
    ): Promise<UserFreeBusy[]> {
      const { meetingId, userId } = of(root);
      const all = await ctx.services.availability.conflicts(viewer, meetingId);
      return (userId ? all.filter((entry) => entry.userId === userId) : all).map(shown);
    }
  }
  return ConflictsResolver;
}

export const MeetingConflictsResolver = conflictsResolver(
  Meeting,
  (meeting: MeetingRecord) => ({ meetingId: meeting.id }),
  CONFLICTS,
);

export const CreateMeetingConflictsResolver = conflictsResolver(
  CreateMeetingPayload,
  (payload: CreateMeetingPayload) => ({ meetingId: payload.meeting.id }),
  CONFLICTS,
);

export const RescheduleMeetingConflictsResolver = conflictsResolver(
  RescheduleMeetingPayload,
  (payload: RescheduleMeetingPayload) => ({ meetingId: payload.meeting.id }),
  CONFLICTS,
);

export const AddParticipantConflictsResolver = conflictsResolver(
  AddParticipantPayload,
  ({ participant }: AddParticipantPayload) => ({
    meetingId: participant.meetingId,
    userId: participant.userId,
  }),
  "The added user's busy ranges that overlap the meeting (its next occurrence for a series), " +
    'if they share their availability and have not declined: a warning only.',
);
