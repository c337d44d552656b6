import { Migration } from '@mikro-orm/migrations';

/**
 * Reminders (issue 40): each reminder scheduled (its job's key names the meeting, the occurrence
 * and the minutes) and, once sent, when: a reminder is sent once whichever instance runs its job.
 */
export class Migration20261207050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "mail_reminders" (` +
        `"job_key" text not null, ` +
        `"meeting_id" uuid not null, ` +
        `"occurrence_start" timestamptz not null, ` +
        `"minutes" int not null, ` +
        `"run_at" timestamptz not null, ` +
        `"fired_at" timestamptz null, ` +
        `constraint "mail_reminders_pkey" primary key ("job_key"), ` +
        `constraint "mail_reminders_meeting_id_foreign" foreign key ("meeting_id") ` +
        `references "meetings" ("id") on update cascade on delete cascade);`,
    );
    this.addSql(
      `create index "mail_reminders_meeting_idx" on "mail_reminders" ("meeting_id", "fired_at");`,
    );
    this.addSql(
      `create index "mail_reminders_occurrence_idx" on "mail_reminders" ("occurrence_start");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "mail_reminders";`);
  }
}
