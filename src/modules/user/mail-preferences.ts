import { IsBoolean, IsOptional } from 'class-validator';
import { Field, InputType, ObjectType } from 'type-graphql';

/**
 * The kinds of mail a user may turn off, each with what it covers. Stored as the list of those
 * turned off (User.mailMuted), so a new kind is on for everyone; GraphQL's MailPreferences and
 * MailPreferencesInput get one Boolean field per kind from this list.
 */
export const MAIL_TOPICS = {
  invitations: 'Invitations to meetings.',
  updates: 'Changes to meetings you take part in: edits, moves and cancellations.',
  answers: "Answers to your meetings' invitations.",
  reminders: 'Reminders before the meetings you accepted or own (Meeting.reminderMinutes).',
} as const;

export type MailTopic = keyof typeof MAIL_TOPICS;

export const MAIL_TOPIC_NAMES = Object.keys(MAIL_TOPICS) as MailTopic[];

export const isMailTopic = (value: unknown): value is MailTopic =>
  typeof value === 'string' && Object.hasOwn(MAIL_TOPICS, value);

/** Which kinds of mail a user gets. */
export type MailPreferenceRecord = Record<MailTopic, boolean>;

@ObjectType({
  simpleResolvers: true,
  description: 'Which kinds of mail the user gets (all on unless turned off).',
})
export class MailPreferences {}

@InputType({ description: 'Kinds of mail to turn on (true) or off (false); those left out stay.' })
export class MailPreferencesInput {}

for (const [topic, text] of Object.entries(MAIL_TOPICS)) {
  Field(() => Boolean, { description: text })(MailPreferences.prototype, topic);
  Field(() => Boolean, { nullable: true, description: text })(
    MailPreferencesInput.prototype,
    topic,
  );
  IsOptional()(MailPreferencesInput.prototype, topic);
  IsBoolean()(MailPreferencesInput.prototype, topic);
}

/** The preferences of a user, from the kinds they turned off. */
export function preferencesOf(user: { mailMuted: readonly string[] }): MailPreferenceRecord {
  return Object.fromEntries(
    MAIL_TOPIC_NAMES.map((topic) => [topic, !user.mailMuted.includes(topic)]),
  ) as MailPreferenceRecord;
}

/** The kinds turned off after `changes` (a kind given true is on again, false off). */
export function mutedAfter(
  muted: readonly string[],
  changes: Partial<Record<MailTopic, boolean | null>>,
): string[] {
  return MAIL_TOPIC_NAMES.filter((topic) => {
    const wanted = changes[topic];
    return typeof wanted === 'boolean' ? !wanted : muted.includes(topic);
  });
}
