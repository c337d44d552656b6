import type { EntityManager } from '@mikro-orm/postgresql';
import type { IssuedRefresh, RefreshClaims } from '../../platform/auth/tokens';
import { executeRows, type Row } from '../../platform/sql/rows';
import { SESSION_ENDS_CHANNEL } from '../../platform/live/session-end';

/** A refresh token's state, as a failed rotation needs it to decide what happened. */
export interface RefreshTokenState {
  familyId: string;
  used: boolean;
  revoked: boolean;
}

/** The token a rotation retires and the successor it records. */
export interface Rotation {
  jti: string;
  familyId: string;
  userId: string;
  successor: IssuedRefresh;
  /** Seconds after its first use during which the token may still be traded (0: never). */
  reuseInterval: number;
}

const T = '"refresh_tokens"';

// One statement retires the token and records its successor, so of two concurrent uses the second
// waits on the row lock and then re-reads the row: with no reuse interval it finds it used and
// inserts nothing. `used_at` and `replaced_by` keep their first values (the window never slides).
const ROTATE =
  `with retired as (update ${T} set "used_at" = coalesce("used_at", now()), ` +
  `"replaced_by" = coalesce("replaced_by", ?) ` +
  `where "id" = ? and "family_id" = ? and "user_id" = ? and "revoked_at" is null ` +
  `and "expires_at" > now() and ("used_at" is null ` +
  `or (?::int > 0 and "used_at" > now() - ?::int * interval '1 second')) ` +
  `returning "family_id", "user_id") ` +
  `insert into ${T} ("id", "family_id", "user_id", "expires_at") ` +
  `select ?, "family_id", "user_id", ? from retired returning "id"`;
const INSERT =
  `insert into ${T} ("id", "family_id", "user_id", "expires_at") values (?, ?, ?, ?) ` +
  `on conflict ("id") do nothing returning "id"`;
const STATE =
  `select "family_id", "used_at" is not null as "used", "revoked_at" is not null as "revoked" ` +
  `from ${T} where "id" = ?`;
/**
 * Revokes the live tokens `where` selects and, when there were any, tells every instance whose
 * sessions ended (one notice per user), in one statement: the notice is heard once it commits.
 */
const revoke = (where: string) =>
  `with revoked as (update ${T} set "revoked_at" = now() where ${where} and "revoked_at" is null ` +
  `returning "user_id"), ended as (select "user_id", count(*)::int as "n" from revoked ` +
  `group by "user_id") select "n", pg_notify('${SESSION_ENDS_CHANNEL}', ` +
  `json_build_object('userId', "user_id")::text)::text as "notified" from ended`;
const REVOKE_FAMILY_OF = revoke(`"family_id" = (select "family_id" from ${T} where "id" = ?)`);
const REVOKE_USER = revoke(`"user_id" = ?`);
const PRUNE =
  `delete from ${T} where "id" in (select "id" from ${T} where "expires_at" < now() ` +
  `order by "expires_at" limit ?) returning "id"`;

const countRevoked = (rows: readonly Row[]): number =>
  rows.reduce((sum, row) => sum + Number(row['n']), 0);

/** Every read and write of refresh tokens (the `refresh_tokens` table). */
export class RefreshTokenStore {
  constructor(private readonly em: EntityManager) {}

  private run(sql: string, params: unknown[]): Promise<Row[]> {
    return executeRows(this.em, sql, params);
  }

  /** Records a token that starts a family (a sign-in). */
  async start(userId: string, token: IssuedRefresh): Promise<void> {
    await this.run(INSERT, [token.jti, token.familyId, userId, token.expiresAt]);
  }

  /**
   * Records a token signed before refresh tokens were stateful, unused, in a family of its own;
   * a concurrent adoption of the same token inserts nothing.
   */
  async adopt(claims: RefreshClaims, familyId: string): Promise<void> {
    await this.run(INSERT, [claims.jti, familyId, claims.userId, claims.expiresAt]);
  }

  /** Retires a live token and records its successor; false when the token may not be traded. */
  async rotate(rotation: Rotation): Promise<boolean> {
    const { successor, reuseInterval } = rotation;
    const rows = await this.run(ROTATE, [
      successor.jti,
      rotation.jti,
      rotation.familyId,
      rotation.userId,
      reuseInterval,
      reuseInterval,
      successor.jti,
      successor.expiresAt,
    ]);
    return rows.length === 1;
  }

  /** A token's family and state; null for a token never recorded (or already pruned). */
  async state(jti: string): Promise<RefreshTokenState | null> {
    const [row] = await this.run(STATE, [jti]);
    return row
      ? { familyId: row['family_id'] as string, used: !!row['used'], revoked: !!row['revoked'] }
      : null;
  }

  /**
   * Revokes every live token of the family `jti` belongs to, which ends that session's access
   * tokens and connections too; how many were live.
   */
  async revokeFamilyOf(jti: string): Promise<number> {
    return countRevoked(await this.run(REVOKE_FAMILY_OF, [jti]));
  }

  /** Revokes every live token of a user, ending all their sessions; how many were live. */
  async revokeUser(userId: string): Promise<number> {
    return countRevoked(await this.run(REVOKE_USER, [userId]));
  }

  /** Deletes up to `limit` expired tokens (their JWTs are refused by their `exp` anyway). */
  async pruneExpired(limit: number): Promise<number> {
    return (await this.run(PRUNE, [limit])).length;
  }
}
