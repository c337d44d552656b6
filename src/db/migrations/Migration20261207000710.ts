import { Migration } from '@mikro-orm/migrations';

/**
 * Mail (issue 40): one row per message to one recipient (its bytes as every attempt sends them,
 * its state), unique per (change, recipient) by `dedupe_key`; `mail_dispatch`, the cursor of the
 * change log's consumer that makes messages, moved in the transaction that writes them and queues
 * their jobs (it starts at the log's end: changes made before mail existed make none); and
 * `users.email_verified` (no message but verification goes to an address not verified).
 */
export class Migration20261207000710 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create type "mail_kind" as enum ('verification', 'invitation', 'update', ` +
        `'cancellation', 'answer', 'join_request', 'reminder');`,
    );
    this.addSql(`create type "mail_status" as enum ('kept', 'pending', 'sent', 'failed');`);
    this.addSql(
      `create table "mail_messages" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"dedupe_key" varchar(200) not null, ` +
        `"kind" "mail_kind" not null, ` +
        `"user_id" uuid null, ` +
        `"sender_id" uuid null, ` +
        `"recipient" varchar(255) not null, ` +
        `"subject" varchar(998) not null, ` +
        `"message_id" varchar(255) not null, ` +
        `"raw" text not null, ` +
        `"status" "mail_status" not null default 'pending', ` +
        `"attempt_count" int not null default 0, ` +
        `"next_attempt_at" timestamptz null, ` +
        `"last_error" text null, ` +
        `"sent_at" timestamptz null, ` +
        `constraint "mail_messages_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "mail_messages_sender_idx" on "mail_messages" ("sender_id", "created_at");`,
    );
    this.addSql(`create index "mail_messages_newest_idx" on "mail_messages" ("created_at", "id");`);
    this.addSql(
      `alter table "mail_messages" add constraint "mail_messages_dedupe_unique" ` +
        `unique ("dedupe_key");`,
    );
    this.addSql(
      `create table "mail_dispatch" (` +
        `"id" smallint not null default 1, ` +
        `"tx" xid8 not null, ` +
        `"position" bigint not null, ` +
        `"queued_up_to" timestamptz not null default '-infinity', ` +
        `constraint "mail_dispatch_pkey" primary key ("id"), ` +
        `constraint "mail_dispatch_one_row" check ("id" = 1));`,
    );
    const last = `from "change_log" order by "tx" desc, "position" desc limit 1`;
    this.addSql(
      `insert into "mail_dispatch" ("id", "tx", "position") values (1, ` +
        `coalesce((select "tx" ${last}), '0'::xid8), coalesce((select "position" ${last}), 0));`,
    );
    this.addSql(`alter table "users" add column "email_verified" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column "email_verified";`);
    this.addSql(`drop table "mail_dispatch";`);
    this.addSql(`drop table "mail_messages";`);
    this.addSql(`drop type "mail_status";`);
    this.addSql(`drop type "mail_kind";`);
  }
}
