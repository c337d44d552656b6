import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Viewer } from '../../platform/auth/tokens';
import { MaxItems } from '../../platform/graphql/list-size';
import type { UserRecord } from '../user';
import type { Context } from './availability.context';
import { AWAY_LIMITS, AwayPeriod } from './away-period.entity';
import {
  CreateAwayPeriodInput,
  DeleteAwayPeriodInput,
  MyAwayPeriodsArgs,
  UpdateAwayPeriodInput,
} from './away-period.inputs';
import type { AwayPeriodRecord } from './away-period.store';
import {
  CreateAwayPeriodPayload,
  DeleteAwayPeriodPayload,
  UpdateAwayPeriodPayload,
} from './away-period.types';

const DECLINES =
  'An OUT_OF_OFFICE period with declineInvitations declines the caller’s open invitations to ' +
  'meetings within it (a series: when every occurrence is), as the caller’s own answer would, ' +
  'with its title as the reason: those open now at once, later ones as they come.';

@Resolver()
export class AwayPeriodResolver {
  @Authorized()
  @MaxItems(AWAY_LIMITS.listed)
  @Query(() => [AwayPeriod], {
    description:
      `The caller’s away periods that overlap from–to (at most ${AWAY_LIMITS.windowDays} ` +
      `days), earliest first, at most ${AWAY_LIMITS.listed}.`,
  })
  myAwayPeriods(
    @Args() args: MyAwayPeriodsArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<AwayPeriodRecord[]> {
    return ctx.services.awayPeriods.mine(viewer, args);
  }

  @Authorized()
  @Mutation(() => CreateAwayPeriodPayload, {
    description: `Records a span of time the caller is away (out of office or focus). ${DECLINES}`,
  })
  async createAwayPeriod(
    @Arg('input', { description: 'The period.' }) input: CreateAwayPeriodInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CreateAwayPeriodPayload> {
    return { awayPeriod: await ctx.services.awayPeriods.create(viewer, input) };
  }

  @Authorized()
  @Mutation(() => UpdateAwayPeriodPayload, {
    description: `Changes one of the caller’s away periods (else AWAY_PERIOD_NOT_FOUND). ${DECLINES}`,
  })
  async updateAwayPeriod(
    @Arg('input', { description: 'The period and its changes.' }) input: UpdateAwayPeriodInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UpdateAwayPeriodPayload> {
    return { awayPeriod: await ctx.services.awayPeriods.update(viewer, input) };
  }

  @Authorized()
  @Mutation(() => DeleteAwayPeriodPayload, {
    description:
      'Deletes one of the caller’s away periods (else AWAY_PERIOD_NOT_FOUND); invitations it ' +
      'declined stay declined.',
  })
  async deleteAwayPeriod(
    @Arg('input', { description: 'The period.' }) input: DeleteAwayPeriodInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<DeleteAwayPeriodPayload> {
    return { awayPeriod: await ctx.services.awayPeriods.remove(viewer, input.awayPeriodId) };
  }
}
