import type { EntityManager } from '@mikro-orm/postgresql';
import { inSqlTransaction } from '../../platform/sql/sql-transaction';
import { NotFoundError } from '../../platform/shared/errors';
import type { CalendarEntry } from '../calendar';
import { type ChangeNotice, isMeetingEvent, MeetingEventKind } from '../meeting';
import type { UserRecord } from '../user';
import { MailKind, MailStatus } from './mail-message.entity';
import type { Context } from './mail.context';
import type { Draft, PlanEnv } from './mail.draft';
import { compose, newMessageId } from './mail.compose';
import { sendJob } from './mail.jobs';
import type { MailMetrics } from './mail.metrics';
import { planChanges, userCache } from './mail.plan';
import type { ReplyAddresses } from './mail.reply-address';
import { answerableUntil } from './mail.rsvp';
import { MailStore, type NewMail } from './mail.store';
import { planReminders } from './reminders/reminder.tasks';
import { ReminderStore } from './reminders/reminder.store';

/**
 * How messages leave: sent through SMTP, kept for the development page (no SMTP_URL outside
 * production), or not at all (production without SMTP_URL: reminders are still scheduled).
 */
export type MailMode = 'smtp' | 'keep' | 'off';

export interface DispatchDeps {
  /** A fresh entity manager (one per batch). */
  em: () => EntityManager;
  /** A context acting as `user` outside any request, over an entity manager. */
  contextOf: (user: UserRecord, over: EntityManager) => Context;
  env: Pick<PlanEnv, 'links' | 'publicUrl'>;
  /** The per-invitation reply addresses (MAIL_REPLY_DOMAIN), or null. */
  replies: ReplyAddresses | null;
  /** MAIL_PER_SENDER_PER_HOUR. */
  perSenderPerHour: number;
  /** MAIL_FROM. */
  from: string;
  mode: MailMode;
  metrics: MailMetrics;
}

/** Changes read at a time, and batches one run makes before it hands over to a new one. */
const BATCH = 200;
const BATCHES_PER_RUN = 10;

const HOUR_MS = 3_600_000;

/** The plan of a batch with mail off: no message. */
const NO_MAIL: Awaited<ReturnType<typeof planChanges>> = { drafts: [], skipped: [] };

/** What the planners of one batch read: users and meetings once each, over its manager. */
function planEnv(em: EntityManager, deps: DispatchDeps): PlanEnv {
  const user = userCache(em);
  const store = new MailStore(em);
  const entries = new Map<string, Promise<CalendarEntry | null>>();
  const read = async (meetingId: string): Promise<CalendarEntry | null> => {
    const ownerId = await store.ownerOf(meetingId);
    const owner = ownerId ? await user(ownerId) : null;
    if (!owner) {
      return null;
    }
    const calendar = deps.contextOf(owner, em).services.calendar;
    return calendar.meetingEntry(owner, meetingId).catch((error: unknown) => {
      if (error instanceof NotFoundError) {
        return null;
      }
      throw error;
    });
  };
  return {
    ...deps.env,
    em,
    user,
    entry(meetingId) {
      let entry = entries.get(meetingId);
      if (!entry) {
        entry = read(meetingId);
        entries.set(meetingId, entry);
      }
      return entry;
    },
    replyAddress(entry, reader) {
      const mine = entry.attendees.find(({ user: attendee }) => attendee.id === reader.id);
      return deps.replies && mine
        ? deps.replies.addressOf(mine.participant.id, answerableUntil(entry.meeting))
        : undefined;
    },
    async unsent(drafts) {
      const made = await store.existingKeys(drafts.map((draft) => draft.dedupeKey));
      return drafts.filter((draft) => !made.has(draft.dedupeKey));
    },
  };
}

/** The meetings whose reminders a batch of changes may move (any meeting event but a reminder). */
function remindedMeetings(changes: readonly ChangeNotice[]): string[] {
  const ids = changes.flatMap((change) =>
    isMeetingEvent(change) && change.kind !== MeetingEventKind.REMINDER ? [change.meetingId] : [],
  );
  return [...new Set(ids)];
}

/** A draft composed: its bytes, and the Message-ID every attempt sends. */
async function composed(draft: Draft, deps: DispatchDeps): Promise<NewMail> {
  const messageId = newMessageId(deps.from);
  return {
    dedupeKey: draft.dedupeKey,
    kind: draft.kind,
    userId: draft.user.id,
    senderId: draft.senderId,
    recipient: draft.user.email,
    subject: draft.letter.subject,
    messageId,
    status: deps.mode === 'keep' ? MailStatus.KEPT : MailStatus.PENDING,
    raw: await compose(deps.from, draft.letter, messageId),
  };
}

/**
 * Makes the messages of the changes past the mail dispatcher's cursor, a batch at a time, and
 * schedules again the reminders of the meetings they changed. Each batch's messages, their first
 * attempts' jobs, its meetings' reminder jobs and the cursor's move are one transaction (the
 * cursor moves only from where the batch was read: a dispatcher that lost the race writes
 * nothing), so each change makes its messages once, whichever instance runs it, and none is
 * lost to a crash. Answers whether changes remain (the caller queues another run).
 */
export async function dispatchMail(deps: DispatchDeps): Promise<boolean> {
  for (let batch = 0; batch < BATCHES_PER_RUN; batch += 1) {
    const em = deps.em();
    const store = new MailStore(em);
    const from = await store.cursor.upTo();
    const read = await store.changesAfter(from, BATCH);
    const last = read.at(-1);
    if (!last) {
      return false;
    }
    const reminders = await planReminders(em, remindedMeetings(read));
    const plan =
      deps.mode === 'off'
        ? NO_MAIL
        : await planChanges(read, planEnv(em, deps), {
            perHour: deps.perSenderPerHour,
            sentInLastHour: (senderId) =>
              store.countSentBy(senderId, MailKind.INVITATION, new Date(Date.now() - HOUR_MS)),
          });
    const made = await Promise.all(plan.drafts.map((draft) => composed(draft, deps)));
    const inserted = await inSqlTransaction(em, async (tx) => {
      const messages = new MailStore(tx);
      if ((await messages.cursor.moveTo(from, last.cursor, 0)) === null) {
        return null;
      }
      await new ReminderStore(tx).replace(reminders);
      const written = await messages.insert(made);
      await messages.queue(
        written
          .filter((message) => message.status === MailStatus.PENDING)
          .map((message) => sendJob({ mailId: message.id, attempt: 1 })),
      );
      return written;
    });
    for (const message of inserted ?? []) {
      deps.metrics.made.inc({ kind: message.kind, mode: deps.mode });
    }
    if (inserted) {
      for (const { draft, reason } of plan.skipped) {
        deps.metrics.skipped.inc({ kind: draft.kind, reason });
      }
    }
    if (inserted && read.length < BATCH) {
      return false;
    }
  }
  return true;
}
