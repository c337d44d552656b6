import { Migration } from '@mikro-orm/migrations';

/**
 * Calendar feeds (issue 28): a user's feed is named by a secret, of which only the SHA-256 is
 * kept, one feed a user. A meeting counts its revisions (`sequence`, iCalendar's SEQUENCE): every
 * change of what a calendar shows of it, and every occurrence cancelled or moved, adds one.
 */
export class Migration20261126230000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "calendar_feeds" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"user_id" uuid not null, ` +
        `"secret_hash" varchar(64) not null, ` +
        `constraint "calendar_feeds_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "calendar_feeds" add constraint "calendar_feeds_user_id_unique" ` +
        `unique ("user_id");`,
    );
    this.addSql(
      `alter table "calendar_feeds" add constraint "calendar_feeds_secret_hash_unique" ` +
        `unique ("secret_hash");`,
    );
    this.addSql(
      `alter table "calendar_feeds" add constraint "calendar_feeds_user_id_foreign" ` +
        `foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`alter table "meetings" add column "sequence" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "meetings" drop column "sequence";`);
    this.addSql(`drop table "calendar_feeds";`);
  }
}
