import { Migration } from '@mikro-orm/migrations';

/**
 * Each user's working week (issue 41): wall-clock periods in the user's zone, as JSON
 * (`[{ "weekday": 1, "start": "09:00", "end": "17:00" }, …]`); null, every existing user's, is
 * the default week (Monday to Friday, 09:00 to 17:00).
 */
export class Migration20261207010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "working_hours" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column "working_hours";`);
  }
}
