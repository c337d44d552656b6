import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions end everywhere (issue 23). Every authenticated request asks whether its session's
 * refresh-token family was revoked: a partial index holds the revoked rows only, so that probe
 * stays one index lookup however many rotations a live family recorded. And a user deactivated or
 * deleted (`is_active`, `deleted_at`: no mutation does it, an operator's statement does) has every
 * session revoked and announced on the `session_ends` channel (src/platform/live/session-end.ts) by a
 * trigger, so open connections of that user close at once on every instance.
 */
export class Migration20261126144400 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "refresh_tokens_revoked_family_idx" on "refresh_tokens" ("family_id") where "revoked_at" is not null;`,
    );
    this.addSql(
      `create function "end_sessions_of_hidden_user"() returns trigger language plpgsql as $$ begin ` +
        `update "refresh_tokens" set "revoked_at" = now() ` +
        `where "user_id" = new."id" and "revoked_at" is null; ` +
        `perform pg_notify('session_ends', json_build_object('userId', new."id")::text); ` +
        `return null; end $$;`,
    );
    // Only the change from visible to hidden: the WHEN clause keeps every other update of users
    // (profiles, passwords) from calling the function at all.
    this.addSql(
      `create trigger "users_end_sessions" after update of "is_active", "deleted_at" on "users" ` +
        `for each row when (old."is_active" and old."deleted_at" is null ` +
        `and not (new."is_active" and new."deleted_at" is null)) ` +
        `execute function "end_sessions_of_hidden_user"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "users_end_sessions" on "users";`);
    this.addSql(`drop function "end_sessions_of_hidden_user"();`);
    this.addSql(`drop index "refresh_tokens_revoked_family_idx";`);
  }
}
