import { HiddenProps } from '@mikro-orm/core';
import { Entity, Enum, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../../platform/shared/base.entity';

/** Where a message stands. */
export enum MailStatus {
  /** Kept in the database for the development mail page (no SMTP_URL outside production). */
  KEPT = 'kept',
  /** An attempt is due. */
  PENDING = 'pending',
  /** The SMTP server took it. */
  SENT = 'sent',
  /** Refused for good (a 5xx) or every attempt failed. */
  FAILED = 'failed',
}

/** What a message is for: its kind, which preferences and the unsubscribe link name. */
export enum MailKind {
  VERIFICATION = 'verification',
  INVITATION = 'invitation',
  UPDATE = 'update',
  CANCELLATION = 'cancellation',
  ANSWER = 'answer',
  JOIN_REQUEST = 'join_request',
  REMINDER = 'reminder',
}

/**
 * One message to one recipient, composed once when its change was dispatched: every attempt
 * sends the same bytes, so its Message-ID is the same on every retry. `dedupeKey` names the
 * change and the recipient: a message is made once per (event, recipient).
 */
@Entity({ tableName: 'mail_messages' })
@Unique({ name: 'mail_messages_dedupe_unique', properties: ['dedupeKey'] })
@Index({ name: 'mail_messages_newest_idx', properties: ['createdAt', 'id'] })
@Index({ name: 'mail_messages_sender_idx', properties: ['senderId', 'createdAt'] })
export class MailMessage extends BaseEntity<
  'status' | 'attemptCount' | 'nextAttemptAt' | 'lastError' | 'sentAt' | 'senderId' | 'userId'
> {
  [HiddenProps]?: 'raw';

  @Property({ length: 200 })
  dedupeKey!: string;

  @Enum({ items: () => MailKind, nativeEnumName: 'mail_kind' })
  kind!: MailKind;

  /** The recipient, when a user of the service. */
  @Property({ type: 'uuid', nullable: true })
  userId: string | null = null;

  /** The user whose action caused it (an invitation's owner), for MAIL_PER_SENDER_PER_HOUR. */
  @Property({ type: 'uuid', nullable: true })
  senderId: string | null = null;

  /** The envelope's recipient address. */
  @Property({ length: 255 })
  recipient!: string;

  @Property({ length: 998 })
  subject!: string;

  /** Its Message-ID header, without the angle brackets. */
  @Property({ length: 255 })
  messageId!: string;

  /** The whole message (RFC 5322), exactly as every attempt sends it. */
  @Property({ type: 'text', hidden: true })
  raw!: string;

  @Enum({
    items: () => MailStatus,
    nativeEnumName: 'mail_status',
    default: MailStatus.PENDING,
  })
  status: MailStatus = MailStatus.PENDING;

  @Property({ type: 'integer', default: 0 })
  attemptCount: number = 0;

  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt: Date | null = null;

  /** The last failed attempt's error (the server's reply, or the network's). */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  sentAt: Date | null = null;
}
