import { Migration } from '@mikro-orm/migrations';

export class Migration20261122015109 extends Migration {
  override async up(): Promise<void> {
    // Trigram indexes serve case-insensitive substring search on users.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create type "user_role" as enum ('user', 'admin');`);
    this.addSql(
      `create type "meeting_type" as enum ('all-hands', 'one-on-one', 'team-meeting', 'standup', 'project-meeting');`,
    );
    this.addSql(
      `create type "meeting_status" as enum ('pending', 'confirmed', 'cancelled', 'completed');`,
    );
    this.addSql(`create type "participant_status" as enum ('new', 'accepted', 'declined');`);
    this.addSql(
      `create table "users" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" varchar(40) not null, "email" varchar(255) not null, "account" varchar(32) not null, "password_hash" varchar(255) not null, "roles" "user_role" not null default 'user', "is_active" boolean not null default true, "is_verified" boolean not null default true, "is_superuser" boolean not null default false, "bio" varchar(200) null, "dob" date null, "phone" varchar(20) null, "avatar_photo_id" uuid null, "deleted_at" date null, constraint "users_pkey" primary key ("id"), constraint users_account_format check (account ~ '^[a-z0-9._-]{3,32}\$'), constraint users_email_lower check (email = lower(email)), constraint users_name_length check (char_length(name) >= 8));`,
    );
    this.addSql(`create unique index "users_email_unique" on "users" (lower("email"));`);
    this.addSql(`create unique index "users_account_unique" on "users" (lower("account"));`);
    this.addSql(
      `create index "users_search_trgm_idx" on "users" using gin ("name" gin_trgm_ops, "account" gin_trgm_ops, "email" gin_trgm_ops);`,
    );
    this.addSql(`create index "users_name_id_idx" on "users" ("name", "id");`);

    this.addSql(
      `create table "meetings" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "title" varchar(40) not null, "owner_id" uuid not null, "start_time" timestamptz not null, "location" varchar(40) not null, "appointed_by_id" uuid null, "assigned_to_id" uuid null, "type" "meeting_type" not null default 'all-hands', "status" "meeting_status" not null default 'pending', "location_url" varchar(100) null, constraint "meetings_pkey" primary key ("id"), constraint meetings_location_length check (char_length(location) >= 6), constraint meetings_title_length check (char_length(title) >= 6));`,
    );
    this.addSql(
      `create index "meetings_owner_start_idx" on "meetings" ("owner_id", "start_time");`,
    );

    this.addSql(
      `create table "participants" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "meeting_id" uuid not null, "user_id" uuid not null, "status" "participant_status" not null default 'new', constraint "participants_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "participants_user_status_idx" on "participants" ("user_id", "status", "created_at");`,
    );
    this.addSql(
      `create index "participants_meeting_order_idx" on "participants" ("meeting_id", "created_at", "id");`,
    );
    this.addSql(
      `alter table "participants" add constraint "participants_meeting_user_unique" unique ("meeting_id", "user_id");`,
    );

    this.addSql(
      `create table "follows" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "follower_id" uuid not null, "following_id" uuid not null, constraint "follows_pkey" primary key ("id"), constraint follows_not_self check (follower_id <> following_id));`,
    );
    this.addSql(
      `create index "follows_following_recent_idx" on "follows" ("following_id", "created_at");`,
    );
    this.addSql(
      `create index "follows_follower_recent_idx" on "follows" ("follower_id", "created_at");`,
    );
    this.addSql(
      `alter table "follows" add constraint "follows_pair_unique" unique ("follower_id", "following_id");`,
    );

    this.addSql(
      `alter table "meetings" add constraint "meetings_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "meetings" add constraint "meetings_appointed_by_id_foreign" foreign key ("appointed_by_id") references "users" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "meetings" add constraint "meetings_assigned_to_id_foreign" foreign key ("assigned_to_id") references "users" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "participants" add constraint "participants_meeting_id_foreign" foreign key ("meeting_id") references "meetings" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "participants" add constraint "participants_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "follows" add constraint "follows_follower_id_foreign" foreign key ("follower_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "follows" add constraint "follows_following_id_foreign" foreign key ("following_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
