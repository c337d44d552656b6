import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addJobsStatement, type JobSpec } from '../../platform/jobs/job-queue';
import { DispatchCursor } from '../../platform/live/dispatch-cursor';
import {
  hiddenColumnOf,
  idIn,
  type ReadModel,
  readerOf,
  tableOf,
  updateOf,
} from '../../platform/sql/read-model';
import { arrayLiteral, executeRows, readAll, selectRows } from '../../platform/sql/rows';
import { type ChangeNotice, noticeOf } from '../meeting';
import { type MailKind, MailMessage } from './mail-message.entity';

/** A message as the store answers it (never its bytes, but through `withRaw`). */
export type MailRecord = ReadModel<MailMessage>;

/** A message the dispatcher makes. */
export type NewMail = Pick<
  MailRecord,
  'dedupeKey' | 'kind' | 'userId' | 'senderId' | 'recipient' | 'subject' | 'messageId' | 'status'
> & { raw: string };

/** What settles a message after an attempt. */
export type MailState = Pick<
  MailRecord,
  'status' | 'attemptCount' | 'nextAttemptAt' | 'lastError' | 'sentAt'
>;

const messages = readerOf(MailMessage);
const M = `"${tableOf(MailMessage)}"`;
const RAW = `"${hiddenColumnOf(MailMessage, 'raw')}"`;

const INSERT =
  `insert into ${M} ("id", "dedupe_key", "kind", "user_id", "sender_id", "recipient", ` +
  `"subject", "message_id", ${RAW}, "status") ` +
  `select m."id", m."dedupeKey", m."kind"::"mail_kind", m."userId", m."senderId", ` +
  `m."recipient", m."subject", m."messageId", m."raw", m."status"::"mail_status" ` +
  `from json_to_recordset(?::json) as m("n" int, "id" uuid, "dedupeKey" text, "kind" text, ` +
  `"userId" uuid, "senderId" uuid, "recipient" text, "subject" text, "messageId" text, ` +
  `"raw" text, "status" text) order by m."n" ` +
  `on conflict ("dedupe_key") do nothing returning ${messages.select(M)}`;
const WITH_RAW = `select ${messages.select('m')}, m.${RAW} as "raw" from ${M} m where m."id" = ?`;
const LOCK = `select ${messages.select('m')} from ${M} m where m."id" = ? for update`;
const NEWEST =
  `select ${messages.select('m')} from ${M} m where m."status" = 'kept' ` +
  `order by m."created_at" desc, m."id" desc limit ?`;
const SENT_BY =
  `select count(*)::int as "n" from ${M} m where m."sender_id" = ? and m."kind" = ? ` +
  `and m."created_at" > ?`;
const PRUNE =
  `delete from ${M} where "id" in (select "id" from ${M} where "status" in ('sent', 'failed') ` +
  `and "updated_at" < ? limit 1000) returning 1`;

/** Every read and write of messages, and the mail dispatcher's place in the change log. */
export class MailStore {
  readonly cursor: DispatchCursor;

  constructor(private readonly em: EntityManager) {
    this.cursor = new DispatchCursor(em, 'mail_dispatch');
  }

  /** Every change after `after` no running transaction can still precede, in order. */
  async changesAfter(after: string, limit: number): Promise<ChangeNotice[]> {
    const read = await this.cursor.changesAfter('all', after, limit);
    return read.map(noticeOf);
  }

  /** Writes messages, in order; one already made for its change and recipient is left be. */
  async insert(made: readonly NewMail[]): Promise<MailRecord[]> {
    if (made.length === 0) {
      return [];
    }
    const rows = made.map((message, n) => ({ n, id: randomUUID(), ...message }));
    return readAll(messages, await executeRows(this.em, INSERT, [JSON.stringify(rows)]));
  }

  /** Queues jobs in this transaction: they exist if and only if it commits. */
  async queue(jobs: readonly JobSpec[]): Promise<void> {
    if (jobs.length > 0) {
      const { sql, params } = addJobsStatement(jobs);
      await executeRows(this.em, sql, params);
    }
  }

  /** A message with its bytes; null if it is gone. */
  async withRaw(id: string): Promise<{ message: MailRecord; raw: string } | null> {
    const [row] = await selectRows(this.em, WITH_RAW, [id]);
    const message = row ? messages.read(row) : null;
    return row && message ? { message, raw: String(row['raw']) } : null;
  }

  /** The message, its row held until the transaction ends; null if it is gone. */
  async lock(id: string): Promise<MailRecord | null> {
    const [row] = await executeRows(this.em, LOCK, [id]);
    return row ? messages.read(row) : null;
  }

  /** Where a message stands after an attempt. */
  async settle(id: string, state: MailState): Promise<void> {
    const { sql, params } = updateOf(
      MailMessage,
      { ...state, updatedAt: new Date().toISOString() },
      idIn([id]),
    );
    await executeRows(this.em, sql, params);
  }

  /** The newest messages kept for the development mail page. */
  async newestKept(limit: number): Promise<MailRecord[]> {
    return readAll(messages, await selectRows(this.em, NEWEST, [limit]));
  }

  /** Messages of `kind` one user's actions caused since `since`. */
  async countSentBy(senderId: string, kind: MailKind, since: Date): Promise<number> {
    const [row] = await selectRows(this.em, SENT_BY, [senderId, kind, since]);
    return Number(row?.['n'] ?? 0);
  }

  /** Of these dedupe keys, those whose messages were made. */
  async existingKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) {
      return new Set();
    }
    const rows = await selectRows(
      this.em,
      `select m."dedupe_key" as "key" from ${M} m where m."dedupe_key" = any(?::text[])`,
      [arrayLiteral(keys)],
    );
    return new Set(rows.map((row) => String(row['key'])));
  }

  /** The meeting and the user of a participant, or null when it is gone. */
  async participant(id: string): Promise<{ meetingId: string; userId: string } | null> {
    const [row] = await selectRows(
      this.em,
      `select p."meeting_id" as "meetingId", p."user_id" as "userId" from "participants" p ` +
        `where p."id" = ?`,
      [id],
    );
    return row ? { meetingId: String(row['meetingId']), userId: String(row['userId']) } : null;
  }

  /** The owner of a meeting, or null when it is gone. */
  async ownerOf(meetingId: string): Promise<string | null> {
    const [row] = await selectRows(
      this.em,
      `select m."owner_id" as "ownerId" from "meetings" m where m."id" = ?`,
      [meetingId],
    );
    return row ? String(row['ownerId']) : null;
  }

  /** Deletes up to 1,000 finished messages last changed before `before`. */
  async prune(before: Date): Promise<number> {
    return (await executeRows(this.em, PRUNE, [before])).length;
  }
}
