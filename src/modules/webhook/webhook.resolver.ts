import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { Context } from './webhook.context';
import { Viewer } from '../../platform/auth/tokens';
import { ConnectionArgs, type ConnectionResult } from '../../platform/graphql/connection';
import { MaxItems } from '../../platform/graphql/list-size';
import type { UserRecord } from '../user';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from './webhook-delivery.store';
import { WebhookEndpoint } from './webhook.entity';
import {
  CreateWebhookEndpointInput,
  DeleteWebhookEndpointInput,
  RedeliverWebhookInput,
  RotateWebhookSecretInput,
  UpdateWebhookEndpointInput,
  WebhookEndpointIdArgs,
} from './webhook.inputs';
import { WEBHOOK_LIMITS } from './webhook.limits';
import type { WebhookEndpointRecord } from './webhook.store';
import {
  CreateWebhookEndpointPayload,
  DeleteWebhookEndpointPayload,
  RedeliverWebhookPayload,
  RotateWebhookSecretPayload,
  UpdateWebhookEndpointPayload,
  WebhookAttemptConnection,
} from './webhook.types';

/** The caller's webhook endpoints and what was sent to them. */
@Resolver()
export class WebhookResolver {
  @Authorized()
  @Query(() => [WebhookEndpoint], { description: "The caller's webhook endpoints, oldest first." })
  @MaxItems(WEBHOOK_LIMITS.endpointsPerUser)
  webhookEndpoints(
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<WebhookEndpointRecord[]> {
    return ctx.services.webhooks.list(viewer);
  }

  @Authorized()
  @Query(() => WebhookAttemptConnection.type, {
    description:
      'The attempts to deliver events to one of the caller’s endpoints, newest first: when each ' +
      'was sent, the status code that answered, how long it took, or why it failed.',
  })
  webhookDeliveries(
    // type-graphql lists the arguments of several @Args() last first: endpointId, then the slice.
    @Args() slice: ConnectionArgs,
    @Args() { endpointId }: WebhookEndpointIdArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<WebhookAttemptRecord>> {
    return ctx.services.webhooks.attempts(viewer, endpointId, slice);
  }

  @Authorized()
  @Mutation(() => CreateWebhookEndpointPayload, {
    description:
      'Adds a webhook endpoint (at most 10 a user): the events of the meetings the caller may ' +
      'see are POSTed to it, signed (Standard Webhooks) with the secret answered here, once.',
  })
  createWebhookEndpoint(
    @Arg('input', { description: 'Where to, and which events.' }) input: CreateWebhookEndpointInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CreateWebhookEndpointPayload> {
    return ctx.services.webhooks.create(viewer, input);
  }

  @Authorized()
  @Mutation(() => UpdateWebhookEndpointPayload, {
    description: 'Changes one of the caller’s webhook endpoints, or enables or disables it.',
  })
  async updateWebhookEndpoint(
    @Arg('input', { description: 'The endpoint, and what changes.' })
    input: UpdateWebhookEndpointInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UpdateWebhookEndpointPayload> {
    return { endpoint: await ctx.services.webhooks.update(viewer, input) };
  }

  @Authorized()
  @Mutation(() => DeleteWebhookEndpointPayload, {
    description: 'Deletes one of the caller’s webhook endpoints; nothing more is sent to it.',
  })
  async deleteWebhookEndpoint(
    @Arg('input', { description: 'The endpoint.' }) input: DeleteWebhookEndpointInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<DeleteWebhookEndpointPayload> {
    return { endpoint: await ctx.services.webhooks.remove(viewer, input.endpointId) };
  }

  @Authorized()
  @Mutation(() => RotateWebhookSecretPayload, {
    description:
      'Gives one of the caller’s endpoints a new signing secret, answered once; for 24 hours ' +
      'webhook-signature carries a signature by the old one too.',
  })
  rotateWebhookSecret(
    @Arg('input', { description: 'The endpoint.' }) input: RotateWebhookSecretInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RotateWebhookSecretPayload> {
    return ctx.services.webhooks.rotate(viewer, input.endpointId);
  }

  @Authorized()
  @Mutation(() => RedeliverWebhookPayload, {
    description:
      'Sends a delivery to one of the caller’s enabled endpoints again, now: the same webhook-id ' +
      'and body, signed anew.',
  })
  async redeliverWebhook(
    @Arg('input', { description: 'The delivery.' }) input: RedeliverWebhookInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<RedeliverWebhookPayload> {
    return { delivery: await ctx.services.webhooks.redeliver(viewer, input.deliveryId) };
  }
}

/** What an endpoint's owner sees of its deliveries beside its own fields. */
@Resolver(() => WebhookEndpoint)
export class WebhookEndpointResolver {
  @FieldResolver(() => Int, {
    description:
      'Its deliveries not yet delivered (pending): due, waiting to retry, or kept while it is ' +
      'disabled. Past WEBHOOK_MAX_BACKLOG of those made since it was last enabled, it is disabled.',
  })
  backlog(@Root() endpoint: WebhookEndpointRecord, @Ctx() ctx: Context): Promise<number> {
    return ctx.loaders.webhookBacklogs.load(endpoint.id);
  }
}

/** An attempt's delivery, read with it. */
@Resolver(() => WebhookAttempt)
export class WebhookAttemptResolver {
  @FieldResolver(() => WebhookDelivery, { description: 'The delivery it tried.' })
  delivery(@Root() attempt: WebhookAttemptRecord): WebhookDeliveryRecord {
    return attempt.delivery;
  }
}
