import { OptionalProps } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { User } from '../user';

/**
 * One refresh token the service issued: its row is keyed by the JWT's `jti`. Tokens of one sign-in
 * form a family (RFC 9700 §4.14.2): each use retires the token (`usedAt`, `replacedBy`) and issues
 * its successor in the same family; presenting a retired token again revokes the whole family.
 * Never answered to clients, so not a GraphQL type.
 */
@Entity({ tableName: 'refresh_tokens' })
@Index({ name: 'refresh_tokens_family_idx', properties: ['familyId'] })
@Index({ name: 'refresh_tokens_user_idx', properties: ['userId'] })
@Index({ name: 'refresh_tokens_expires_idx', properties: ['expiresAt'] })
// Every authenticated request asks whether its session's family was revoked: a probe of the
// revoked rows only, however many rotations a live family has recorded.
@Index({
  name: 'refresh_tokens_revoked_family_idx',
  expression:
    'create index "refresh_tokens_revoked_family_idx" on "refresh_tokens" ("family_id") ' +
    'where "revoked_at" is not null',
})
export class RefreshToken {
  [OptionalProps]?: 'issuedAt' | 'usedAt' | 'replacedBy' | 'revokedAt';

  /** The token's `jti` claim. */
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** The sign-in this token descends from; carried in the token as the `fam` claim. */
  @Property({ type: 'uuid' })
  familyId!: string;

  @ManyToOne(() => User, { mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  issuedAt: Date = new Date();

  /** The token's `exp`: past it the row only waits to be pruned. */
  @Property({ type: 'datetime' })
  expiresAt!: Date;

  /** When the token was first traded for its successor. */
  @Property({ type: 'datetime', nullable: true })
  usedAt: Date | null = null;

  /** The `jti` of the first successor. */
  @Property({ type: 'uuid', nullable: true })
  replacedBy: string | null = null;

  /**
   * When the family was revoked (reuse, logout, password change, deactivation): its session has
   * ended, and the access tokens that name it (`sid`) are refused.
   */
  @Property({ type: 'datetime', nullable: true })
  revokedAt: Date | null = null;
}
