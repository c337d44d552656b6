import type { EntityManager } from '@mikro-orm/postgresql';
import type { LinkTokens } from '../../platform/auth/link-tokens';
import type { CalendarEntry } from '../calendar';
import type { ChangeNotice } from '../meeting';
import type { UserRecord } from '../user';
import type { MailKind } from './mail-message.entity';
import type { Letter } from './mail.compose';

/** A message decided from a change, before it is composed. */
export interface Draft {
  /** The change and the recipient: the same draft is made once, whoever dispatches. */
  dedupeKey: string;
  kind: MailKind;
  /** The recipient (a user of the service). */
  user: UserRecord;
  /** Whose action caused it (a meeting's owner), for MAIL_PER_SENDER_PER_HOUR. */
  senderId: string | null;
  letter: Letter;
}

/** What planning a batch of changes reads. */
export interface PlanEnv {
  em: EntityManager;
  links: LinkTokens;
  publicUrl: string;
  /** Users by id, read once per batch. */
  user(id: string): Promise<UserRecord | null>;
  /** A meeting as its owner's calendar shows it now, or null when it is gone. */
  entry(meetingId: string): Promise<CalendarEntry | null>;
  /**
   * Where `reader`'s calendar app sends its REPLY to the meeting's invitation: their reply
   * address (MAIL_REPLY_DOMAIN), or undefined for the owner's own.
   */
  replyAddress(entry: CalendarEntry, reader: UserRecord): string | undefined;
  /** The drafts whose messages were not made yet (by their dedupe keys). */
  unsent(drafts: readonly Draft[]): Promise<Draft[]>;
}

/** A change's messages. */
export type Planner = (change: ChangeNotice, env: PlanEnv) => Promise<Draft[]>;
