import { Migration } from '@mikro-orm/migrations';

/**
 * Reminders (issue 40): the minutes before each occurrence a meeting's accepted participants and
 * its owner are reminded, [10] unless set, at most five values of 0 to 40320 (MEETING_LIMITS).
 */
export class Migration20261207031016 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "meetings" add column "reminder_minutes" integer[] not null default '{10}';`,
    );
    this.addSql(
      `alter table "meetings" add constraint "meetings_reminder_minutes_range" check ` +
        `(cardinality(reminder_minutes) <= 5 and 0 <= all(reminder_minutes) and ` +
        `40320 >= all(reminder_minutes));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "meetings" drop constraint "meetings_reminder_minutes_range";`);
    this.addSql(`alter table "meetings" drop column "reminder_minutes";`);
  }
}
