import { Migration } from '@mikro-orm/migrations';

export class Migration20261122231750 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "refresh_tokens" ("id" uuid not null, "family_id" uuid not null, "user_id" uuid not null, "issued_at" timestamptz not null default now(), "expires_at" timestamptz not null, "used_at" timestamptz null, "replaced_by" uuid null, "revoked_at" timestamptz null, constraint "refresh_tokens_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "refresh_tokens_expires_idx" on "refresh_tokens" ("expires_at");`);
    this.addSql(`create index "refresh_tokens_user_idx" on "refresh_tokens" ("user_id");`);
    this.addSql(`create index "refresh_tokens_family_idx" on "refresh_tokens" ("family_id");`);

    this.addSql(
      `alter table "refresh_tokens" add constraint "refresh_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "refresh_tokens" cascade;`);
  }
}
