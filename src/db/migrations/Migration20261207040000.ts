import { Migration } from '@mikro-orm/migrations';

/**
 * Mail preferences (issue 40): the kinds of mail each user turned off (MAIL_TOPICS), none at
 * first, through updateProfile or the unsubscribe link of a message.
 */
export class Migration20261207040000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "mail_muted" text[] not null default '{}';`);
    this.addSql(
      `alter table "users" add constraint "users_mail_muted_topics" check ` +
        `(mail_muted <@ array['invitations', 'updates', 'answers', 'reminders']::text[]);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop constraint "users_mail_muted_topics";`);
    this.addSql(`alter table "users" drop column "mail_muted";`);
  }
}
