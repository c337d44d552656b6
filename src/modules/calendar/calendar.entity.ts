import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../../platform/shared/base.entity';
import { User } from '../user';

/**
 * A user's personal calendar feed: the address calendar apps subscribe to, which names the feed by
 * a secret instead of a bearer token. Only the secret's SHA-256 is kept (the secret is 256 random
 * bits, so a plain hash is as strong as a slow one), so the address is shown once, when it is
 * made. One feed a user: making another replaces it, and the old address stops working. Never
 * answered as it is (the GraphQL type is CalendarFeedView), since its hash is no client's business.
 */
@Entity({ tableName: 'calendar_feeds' })
@Unique({ name: 'calendar_feeds_user_id_unique', properties: ['userId'] })
@Unique({ name: 'calendar_feeds_secret_hash_unique', properties: ['secretHash'] })
export class CalendarFeed extends BaseEntity {
  @ManyToOne(() => User, { mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  /** The SHA-256 of the feed's secret, as 64 hexadecimal digits. */
  @Property({ length: 64 })
  secretHash!: string;
}
