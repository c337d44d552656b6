import { IsInt, IsOptional, Max, Min } from 'class-validator';
import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Int,
  Query,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import type { Context } from './meeting-events.context';
import { Connection, type ConnectionResult } from '../../platform/graphql/connection';
import { clientCursor, LOG_START } from '../../platform/live/change-log';
import { Viewer } from '../../platform/auth/tokens';
import { MAX_PAGE_SIZE } from '../../platform/shared/pagination';
import type { UserRecord } from '../user';
import { changesAfter, countChangesAfter, requireKept } from './meeting-events.store';
import { MeetingEvent } from './meeting-events.types';
import { MeetingIdArgs, Participant, type ParticipantRecord } from '../meeting';
import { eventOf, invitations, meetingEvents, myMeetingEvents } from './meeting-events.streams';

export const MeetingEventConnection = Connection(MeetingEvent, 'MeetingEvent');

const AFTER_DESCRIPTION =
  'A cursor of an event received before: first the events after it (those missed), then live ' +
  'ones. Older than the change log keeps: CURSOR_EXPIRED.';

@ArgsType()
class MeetingEventsArgs extends MeetingIdArgs {
  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;
}

@ArgsType()
class ResumeArgs {
  @Field(() => String, { nullable: true, description: AFTER_DESCRIPTION })
  after?: string | null;
}

const DEFAULT_EVENT_PAGE = 20;

@ArgsType()
class EventPageArgs {
  @Field(() => String, {
    nullable: true,
    description: 'A cursor: the events after it (default: from the oldest the log keeps).',
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `How many events, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_EVENT_PAGE}).`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  first?: number | null;
}

/** Meeting events: live over WebSocket (graphql-transport-ws on /graphql), and by query. */
@Resolver()
export class SubscriptionResolver {
  @Authorized()
  @Subscription(() => Participant, {
    description: "The caller's new invitations as they arrive.",
    subscribe: ({ context }: { context: Context }) => invitations(context),
  })
  invitationReceived(@Root() participant: ParticipantRecord): ParticipantRecord {
    return participant;
  }

  @Authorized()
  @Subscription(() => MeetingEvent, {
    description:
      'Changes to one meeting, for its owner, participants and admins; with `after`, first ' +
      'those missed since that cursor, in order, then live ones, with no gap and no repeat.',
    // The UUID scalar has checked the argument (the variables too, before it runs).
    subscribe: ({ context, args }: { context: Context; args: MeetingEventsArgs }) =>
      meetingEvents(context, args.meetingId, args.after),
  })
  meetingEvents(@Root() event: MeetingEvent, @Args() _args: MeetingEventsArgs): MeetingEvent {
    return event;
  }

  @Authorized()
  @Subscription(() => MeetingEvent, {
    description:
      'Every change of every meeting the caller may see (invitations to the caller included); ' +
      'with `after`, first those missed since that cursor, then live ones.',
    subscribe: ({ context, args }: { context: Context; args: ResumeArgs }) =>
      myMeetingEvents(context, args.after),
  })
  myMeetingEvents(@Root() event: MeetingEvent, @Args() _args: ResumeArgs): MeetingEvent {
    return event;
  }

  @Authorized()
  @Query(() => MeetingEventConnection.type, {
    name: 'myMeetingEvents',
    description:
      'The events of the meetings the caller may see, in order, a page at a time: for clients ' +
      'that catch up when they start rather than hold a socket (pageInfo.endCursor continues).',
  })
  async myMeetingEventsPage(
    @Args() page: EventPageArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() context: Context,
  ): Promise<ConnectionResult<MeetingEvent>> {
    const given = clientCursor('after', page.after);
    if (given !== null) {
      await requireKept(context.em, given);
    }
    const after = given ?? LOG_START;
    const first = page.first ?? DEFAULT_EVENT_PAGE;
    const changes = await changesAfter(context.em, { viewer }, after, first + 1);
    const shown = changes.slice(0, first);
    const events = await Promise.all(shown.map((change) => eventOf(context, change)));
    const edges = events.flatMap((node) => (node ? [{ cursor: node.cursor, node }] : []));
    const endCursor = shown[shown.length - 1]?.cursor ?? null;
    return {
      edges,
      nodes: edges.map((edge) => edge.node),
      pageInfo: {
        hasNextPage: changes.length > first,
        hasPreviousPage: given !== null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor,
      },
      count: () => countChangesAfter(context.em, viewer, after),
    };
  }
}
