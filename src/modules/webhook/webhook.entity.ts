import { ArrayType, HiddenProps } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../platform/shared/base.entity';
import { GraphQLDateTime } from '../../platform/shared/scalars';
import { User } from '../user';
import { EVENT_TYPES_TEXT } from './webhook.events';
import { WEBHOOK_LIMITS } from './webhook.limits';

/**
 * A URL of a user's that receives the events of the meetings they may see, signed with a secret
 * of its own (Standard Webhooks). The secret is kept encrypted (AES-256-GCM), never shown again.
 */
@ObjectType({
  simpleResolvers: true,
  description: 'A URL that receives signed events of the meetings its owner may see.',
})
@Entity({ tableName: 'webhook_endpoints' })
@Index({ name: 'webhook_endpoints_user_recent_idx', properties: ['userId', 'createdAt'] })
export class WebhookEndpoint extends BaseEntity<
  | 'enabled'
  | 'disabledReason'
  | 'consecutiveFailures'
  | 'failingSince'
  | 'resumedAt'
  | 'previousSecret'
  | 'previousSecretUntil'
> {
  [HiddenProps]?: 'secret' | 'previousSecret' | 'previousSecretUntil';

  /** Whose endpoint it is: events are read as this user may see them. */
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  @Field({
    description: `Where events are POSTed (http or https; https in production), at most ${WEBHOOK_LIMITS.url.max} characters.`,
  })
  @Property({ length: WEBHOOK_LIMITS.url.max })
  url!: string;

  @Field(() => [String], { description: `The event types it receives: ${EVENT_TYPES_TEXT}.` })
  @Property({ type: ArrayType })
  eventTypes!: string[];

  @Field({
    description:
      'Whether events are sent to it; false once disabled (by its owner, or after ' +
      'WEBHOOK_DISABLE_AFTER consecutive events failed, or its attempts failed for ' +
      'WEBHOOK_DISABLE_AFTER_HOURS, or its backlog passed WEBHOOK_MAX_BACKLOG) until ' +
      'updateWebhookEndpoint enables it, which resumes the deliveries it kept.',
  })
  @Property({ default: true })
  enabled: boolean = true;

  @Field(() => String, { nullable: true, description: 'Why it was disabled, while it is.' })
  @Property({ type: 'string', length: WEBHOOK_LIMITS.disabledReasonLength, nullable: true })
  disabledReason: string | null = null;

  @Field(() => Int, {
    description: 'Events in a row that failed every attempt (0 after any success).',
  })
  @Property({ type: 'integer', default: 0 })
  consecutiveFailures: number = 0;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description:
      'Since when its attempts have failed with no success between (null while they succeed): ' +
      'failing for WEBHOOK_DISABLE_AFTER_HOURS, it is disabled.',
  })
  @Property({ type: 'datetime', nullable: true })
  failingSince: Date | null = null;

  /**
   * When it was last enabled again: the deliveries it kept from before are resumed, and do not
   * count towards WEBHOOK_MAX_BACKLOG (webhook-backlog.store.ts); null if it never was.
   */
  @Property({ type: 'datetime', nullable: true })
  resumedAt: Date | null = null;

  /** The signing secret, sealed (src/platform/auth/secret-box.ts). */
  @Property({ type: 'text', hidden: true })
  secret!: string;

  /** The secret before the last rotation, sealed: it still signs until `previousSecretUntil`. */
  @Property({ type: 'text', nullable: true, hidden: true })
  previousSecret: string | null = null;

  @Property({ type: 'datetime', nullable: true, hidden: true })
  previousSecretUntil: Date | null = null;
}
