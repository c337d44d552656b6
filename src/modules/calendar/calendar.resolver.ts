import { Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Viewer } from '../../platform/auth/tokens';
import type { Context } from './calendar.context';
import type { UserRecord } from '../user';
import {
  CalendarFeedView,
  CreateCalendarFeedPayload,
  RevokeCalendarFeedPayload,
} from './calendar.types';

/** The caller's calendar feed (the documents themselves are served at /calendar, not here). */
@Resolver()
export class CalendarResolver {
  @Authorized()
  @Query(() => CalendarFeedView, {
    nullable: true,
    description: "The caller's calendar feed (its address is shown only when made), or null.",
  })
  calendarFeed(
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CalendarFeedView | null> {
    return ctx.services.calendar.feed(viewer);
  }

  @Authorized()
  @Mutation(() => CreateCalendarFeedPayload, {
    description:
      'Makes the caller a calendar feed and answers its address; called again, it makes a new ' +
      'address and the old one answers 404 from then on.',
  })
  async createCalendarFeed(
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CreateCalendarFeedPayload> {
    return { feed: await ctx.services.calendar.createFeed(viewer) };
  }

  @Authorized()
  @Mutation(() => RevokeCalendarFeedPayload, {
    description: "Ends the caller's calendar feed: its address answers 404 from then on.",
  })
  async revokeCalendarFeed(
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RevokeCalendarFeedPayload> {
    return { revoked: await ctx.services.calendar.revokeFeed(viewer) };
  }
}
