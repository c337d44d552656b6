import { Migration } from '@mikro-orm/migrations';

/**
 * The change log records follows and profile edits too (issue 26): who made a change, when that
 * is not the user it concerns (a follow: the follower).
 */
export class Migration20261126193000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "change_log" add column "actor_id" uuid null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "change_log" drop column "actor_id";`);
  }
}
