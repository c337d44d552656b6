import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (issue 28): a user's endpoints (URL, event types, the signing secret sealed with
 * AES-256-GCM, and the one before the last rotation while it still signs); one delivery per event
 * and endpoint (its body as sent, its state) and each attempt at it. `webhook_dispatch` is the
 * one cursor of the change log's consumer that makes deliveries: it moves in the transaction
 * that writes them and queues their jobs (graphile-worker, which installs its own schema), and
 * keeps the run time of the last job it queued (each batch's jobs run in order after it).
 */
export class Migration20261126231000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create type "webhook_delivery_status" as enum ('pending', 'delivered', 'failed');`,
    );
    this.addSql(
      `create table "webhook_endpoints" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"user_id" uuid not null, ` +
        `"url" varchar(2048) not null, ` +
        `"event_types" text[] not null, ` +
        `"enabled" boolean not null default true, ` +
        `"disabled_reason" varchar(255) null, ` +
        `"consecutive_failures" int not null default 0, ` +
        `"secret" text not null, ` +
        `"previous_secret" text null, ` +
        `"previous_secret_until" timestamptz null, ` +
        `constraint "webhook_endpoints_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_endpoints_user_recent_idx" on "webhook_endpoints" ` +
        `("user_id", "created_at");`,
    );
    this.addSql(
      `create table "webhook_deliveries" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"endpoint_id" uuid not null, ` +
        `"event_type" varchar(64) not null, ` +
        `"cursor" varchar(41) not null, ` +
        `"meeting_id" uuid not null, ` +
        `"payload" text not null, ` +
        `"status" "webhook_delivery_status" not null default 'pending', ` +
        `"attempt_count" int not null default 0, ` +
        `"next_attempt_at" timestamptz null, ` +
        `constraint "webhook_deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint ` +
        `"webhook_deliveries_endpoint_cursor_unique" unique ("endpoint_id", "cursor");`,
    );
    this.addSql(
      `create table "webhook_attempts" (` +
        `"id" uuid not null, ` +
        `"created_at" timestamptz not null default now(), ` +
        `"updated_at" timestamptz not null default now(), ` +
        `"delivery_id" uuid not null, ` +
        `"endpoint_id" uuid not null, ` +
        `"number" int not null, ` +
        `"manual" boolean not null default false, ` +
        `"status_code" int null, ` +
        `"duration_ms" int not null, ` +
        `"error" varchar(500) null, ` +
        `"succeeded" boolean not null, ` +
        `"retry_at" timestamptz null, ` +
        `constraint "webhook_attempts_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_attempts_endpoint_recent_idx" on "webhook_attempts" ` +
        `("endpoint_id", "created_at");`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint ` +
        `"webhook_attempts_delivery_number_unique" unique ("delivery_id", "number");`,
    );
    this.addSql(
      `alter table "webhook_endpoints" add constraint "webhook_endpoints_user_id_foreign" ` +
        `foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint ` +
        `"webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") ` +
        `references "webhook_endpoints" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" ` +
        `foreign key ("delivery_id") references "webhook_deliveries" ("id") ` +
        `on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_endpoint_id_foreign" ` +
        `foreign key ("endpoint_id") references "webhook_endpoints" ("id") ` +
        `on update cascade on delete cascade;`,
    );
    // From the start of the log: changes older than every endpoint make no delivery.
    this.addSql(
      `create table "webhook_dispatch" (` +
        `"id" smallint not null default 1, ` +
        `"tx" xid8 not null, ` +
        `"position" bigint not null, ` +
        `"queued_up_to" timestamptz not null default '-infinity', ` +
        `constraint "webhook_dispatch_pkey" primary key ("id"), ` +
        `constraint "webhook_dispatch_one_row" check ("id" = 1));`,
    );
    this.addSql(`insert into "webhook_dispatch" ("id", "tx", "position") values (1, '0', 0);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "webhook_dispatch";`);
    this.addSql(`drop table "webhook_attempts";`);
    this.addSql(`drop table "webhook_deliveries";`);
    this.addSql(`drop table "webhook_endpoints";`);
    this.addSql(`drop type "webhook_delivery_status";`);
  }
}
