import { Migration } from '@mikro-orm/migrations';

/**
 * Each user's time zone (an IANA name, `UTC` for every existing user): the zone a user's messages
 * and working hours are read in.
 */
export class Migration20261207000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "time_zone" varchar(64) not null default 'UTC';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column "time_zone";`);
  }
}
