import { Field, ObjectType } from 'type-graphql';
import { Connection } from '../../platform/graphql/connection';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import type { WebhookDeliveryRecord } from './webhook-delivery.store';
import { WebhookEndpoint } from './webhook.entity';
import type { WebhookEndpointRecord } from './webhook.store';

/** Slices of an endpoint's attempts, newest first. */
export const WebhookAttemptConnection = Connection(WebhookAttempt, 'WebhookDeliveryAttempt');

const SECRET =
  'The signing secret (whsec_…), shown this once: verify each webhook-signature with it ' +
  '(Standard Webhooks).';

@ObjectType({ simpleResolvers: true, description: 'The result of createWebhookEndpoint.' })
export class CreateWebhookEndpointPayload {
  @Field(() => WebhookEndpoint, { description: 'The new endpoint.' })
  endpoint!: WebhookEndpointRecord;

  @Field({ description: SECRET })
  secret!: string;
}

@ObjectType({ simpleResolvers: true, description: 'The result of updateWebhookEndpoint.' })
export class UpdateWebhookEndpointPayload {
  @Field(() => WebhookEndpoint, { description: 'The endpoint as it is now.' })
  endpoint!: WebhookEndpointRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The result of deleteWebhookEndpoint.' })
export class DeleteWebhookEndpointPayload {
  @Field(() => WebhookEndpoint, { description: 'The endpoint as it was.' })
  endpoint!: WebhookEndpointRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The result of rotateWebhookSecret.' })
export class RotateWebhookSecretPayload {
  @Field(() => WebhookEndpoint, { description: 'The endpoint.' })
  endpoint!: WebhookEndpointRecord;

  @Field({ description: `${SECRET} The previous secret signs beside it for 24 hours.` })
  secret!: string;
}

@ObjectType({ simpleResolvers: true, description: 'The result of redeliverWebhook.' })
export class RedeliverWebhookPayload {
  @Field(() => WebhookDelivery, { description: 'The delivery, its next attempt due now.' })
  delivery!: WebhookDeliveryRecord;
}
