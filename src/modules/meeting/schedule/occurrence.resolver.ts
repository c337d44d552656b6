import { Args, Authorized, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { Context } from '../meeting.context';
import { Viewer } from '../../../platform/auth/tokens';
import { GraphQLDateTime } from '../../../platform/shared/scalars';
import { MINUTE_MS } from '../../../platform/shared/time-zone';
import type { UserRecord } from '../../user';
import { Meeting } from '../meeting.entity';
import type { MeetingRecord } from '../meeting.store';
import { CancelOccurrenceArgs, MoveOccurrenceArgs, OccurrencesArgs } from './occurrence.inputs';
import {
  CancelOccurrencePayload,
  MeetingOccurrence,
  MoveOccurrencePayload,
} from './occurrence.types';
import { listOccurrences } from './occurrence.service';
import { OCCURRENCE_LIMITS, type Occurrence, type OccurrenceChanged } from './occurrence.rules';
import { MaxItems } from '../../../platform/graphql/list-size';
import { Cost, daysBetween } from '../../../platform/graphql/field-cost';

/** An occurrence as the schema names its fields. */
const shown = (occurrence: Occurrence): MeetingOccurrence => ({
  startTime: occurrence.start.toISOString(),
  endTime: occurrence.end.toISOString(),
  originalStartTime: occurrence.originalStart.toISOString(),
  cancelled: occurrence.cancelled,
});

const answered = ({ meeting, occurrence }: OccurrenceChanged) => ({
  meeting,
  occurrence: shown(occurrence),
});

/** When a meeting happens: its end, its occurrences, and changes of single occurrences. */
@Resolver(() => Meeting)
export class OccurrenceResolver {
  @FieldResolver(() => GraphQLDateTime, {
    description: 'When the meeting (a series: its first occurrence) ends: start plus duration.',
  })
  endTime(@Root() meeting: MeetingRecord): string {
    return new Date(
      Date.parse(meeting.startTime) + meeting.durationMinutes * MINUTE_MS,
    ).toISOString();
  }

  @MaxItems(OCCURRENCE_LIMITS.count)
  @Cost((args) => daysBetween(args['from'], args['to']), 'days in the window (its rule expanded)')
  @FieldResolver(() => [MeetingOccurrence], {
    description:
      'The occurrences that overlap [from, to), by start: one for a single meeting, those of its ' +
      'rule for a series, moved ones where they were moved to, cancelled ones marked. At most ' +
      '500; the window at most 366 days (else BAD_USER_INPUT on to: TOO_SMALL, TOO_LARGE).',
  })
  async occurrences(
    @Root() meeting: MeetingRecord,
    @Args() window: OccurrencesArgs,
    @Ctx() ctx: Context,
  ): Promise<MeetingOccurrence[]> {
    return (await listOccurrences(ctx.loaders, meeting, window)).map(shown);
  }

  @Authorized()
  @Mutation(() => CancelOccurrencePayload, {
    description:
      'Cancels one occurrence of a series, named by its originalStartTime (else ' +
      'NOT_FOUND/OCCURRENCE_NOT_FOUND); a single meeting is CONFLICT/MEETING_NOT_RECURRING (use ' +
      'cancelMeeting). Answers stay. Owner or admin (else ONLY_MEETING_OWNER_CAN_RESCHEDULE); ' +
      'pending or confirmed meetings.',
  })
  async cancelOccurrence(
    @Args() { input }: CancelOccurrenceArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CancelOccurrencePayload> {
    return answered(await ctx.services.meetingLifecycle.cancelOccurrence(viewer, input));
  }

  @Authorized()
  @Mutation(() => MoveOccurrencePayload, {
    description:
      'Moves one occurrence of a series to a future start (a cancelled one takes place again; ' +
      'its original start undoes the move). Answers stay. Same callers and refusals as ' +
      'cancelOccurrence.',
  })
  async moveOccurrence(
    @Args() { input }: MoveOccurrenceArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<MoveOccurrencePayload> {
    return answered(await ctx.services.meetingLifecycle.moveOccurrence(viewer, input));
  }
}
