import { HiddenProps } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { GraphQLDateTime, GraphQLUUID } from '../../platform/shared/scalars';
import { WebhookEndpoint } from './webhook.entity';
import { WEBHOOK_LIMITS } from './webhook.limits';

export enum WebhookDeliveryStatus {
  PENDING = 'pending',
  DELIVERED = 'delivered',
  FAILED = 'failed',
}
registerEnumType(WebhookDeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description:
    'pending while an attempt is due (or its endpoint is disabled: enabling it resumes it); ' +
    'delivered once a 2xx answered; failed once every attempt failed.',
});

/**
 * One event for one endpoint: the body as sent (the same on every attempt) and how far its
 * attempts got. Its id is the `webhook-id` header, the same on every attempt, so receivers
 * deduplicate by it.
 */
@ObjectType({
  simpleResolvers: true,
  description:
    'One event sent to one endpoint, with every attempt; its id is the webhook-id header.',
})
@Entity({ tableName: 'webhook_deliveries' })
@Unique({ name: 'webhook_deliveries_endpoint_cursor_unique', properties: ['endpointId', 'cursor'] })
// An endpoint's backlog (its pending deliveries, those since a time) is counted from these rows
// alone, however many delivered ones the endpoint keeps (webhook-backlog.store.ts).
@Index({
  name: 'webhook_deliveries_pending_idx',
  expression:
    'create index "webhook_deliveries_pending_idx" on "webhook_deliveries" ' +
    `("endpoint_id", "created_at") where "status" = 'pending'`,
})
export class WebhookDelivery extends BaseEntity<'status' | 'attemptCount' | 'nextAttemptAt'> {
  [HiddenProps]?: 'payload';

  @Field(() => GraphQLUUID, { description: 'The endpoint it is sent to.' })
  @ManyToOne(() => WebhookEndpoint, {
    mapToPk: true,
    fieldName: 'endpoint_id',
    deleteRule: 'cascade',
  })
  endpointId!: string;

  @Field({ description: 'The event type, as the body names it.' })
  @Property({ length: 64 })
  eventType!: string;

  @Field({ description: "The change's place in the change log: the body's data.cursor." })
  @Property({ length: 41 })
  cursor!: string;

  @Field(() => GraphQLUUID, { description: 'The meeting it is about.' })
  @Property({ type: 'uuid' })
  meetingId!: string;

  /** The body, exactly as every attempt sends it. */
  @Property({ type: 'text', hidden: true })
  payload!: string;

  @Field(() => WebhookDeliveryStatus, { description: 'Where it stands.' })
  @Enum({
    items: () => WebhookDeliveryStatus,
    nativeEnumName: 'webhook_delivery_status',
    default: WebhookDeliveryStatus.PENDING,
  })
  status: WebhookDeliveryStatus = WebhookDeliveryStatus.PENDING;

  @Field(() => Int, { description: 'Attempts made so far.' })
  @Property({ type: 'integer', default: 0 })
  attemptCount: number = 0;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: 'When the next attempt is due (a retry), if one is.',
  })
  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt: Date | null = null;
}

/** One attempt at a delivery: when it was sent (createdAt), what answered, and how fast. */
@ObjectType('WebhookDeliveryAttempt', {
  simpleResolvers: true,
  description:
    'One attempt to deliver an event: when it was sent (createdAt), the status code that ' +
    'answered, how long it took, or why it failed.',
})
@Entity({ tableName: 'webhook_attempts' })
@Unique({ name: 'webhook_attempts_delivery_number_unique', properties: ['deliveryId', 'number'] })
@Index({ name: 'webhook_attempts_endpoint_recent_idx', properties: ['endpointId', 'createdAt'] })
export class WebhookAttempt extends BaseEntity<'manual' | 'statusCode' | 'error' | 'retryAt'> {
  /** The delivery it tried (GraphQL: `delivery`). */
  @ManyToOne(() => WebhookDelivery, {
    mapToPk: true,
    fieldName: 'delivery_id',
    deleteRule: 'cascade',
  })
  deliveryId!: string;

  /** Its delivery's endpoint, kept here for the endpoint's list of attempts. */
  @ManyToOne(() => WebhookEndpoint, {
    mapToPk: true,
    fieldName: 'endpoint_id',
    deleteRule: 'cascade',
  })
  endpointId!: string;

  @Field(() => Int, { description: 'Which attempt of its delivery (1 is the first).' })
  @Property({ type: 'integer' })
  number!: number;

  @Field({
    description: 'Asked for by redeliverWebhook once its delivery had settled (no retry follows).',
  })
  @Property({ default: false })
  manual: boolean = false;

  @Field(() => Int, { nullable: true, description: 'The HTTP status that answered, if any.' })
  @Property({ type: 'integer', nullable: true })
  statusCode: number | null = null;

  @Field(() => Int, { description: 'From sending to the answer read, in milliseconds.' })
  @Property({ type: 'integer' })
  durationMs!: number;

  @Field(() => String, {
    nullable: true,
    description:
      'Why no answer came (a timeout, a refused connection, an address not allowed, an ' +
      'unreadable secret); null when one came (see statusCode).',
  })
  @Property({ type: 'string', length: WEBHOOK_LIMITS.errorLength, nullable: true })
  error: string | null = null;

  @Field({ description: 'A 2xx answered.' })
  @Property()
  succeeded!: boolean;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: 'When the retry after this failed attempt was scheduled, if one was.',
  })
  @Property({ type: 'datetime', nullable: true })
  retryAt: Date | null = null;
}
