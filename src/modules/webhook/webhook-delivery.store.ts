import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addJobsStatement, type JobSpec } from '../../platform/jobs/job-queue';
import { DispatchCursor } from '../../platform/live/dispatch-cursor';
import {
  byCreation,
  countList,
  readSlice,
  type Slice,
  type SliceRequest,
} from '../../platform/sql/keyset';
import {
  hiddenColumnOf,
  insertOf,
  type ReadModel,
  readerOf,
  tableOf,
} from '../../platform/sql/read-model';
import { executeRows, readAll, selectRows } from '../../platform/sql/rows';
import { NotFoundError } from '../../platform/shared/errors';
import { type ChangeNotice, MEETING_SUBJECT_TYPES, noticeOf } from '../meeting';
import { WebhookAttempt, WebhookDelivery, WebhookDeliveryStatus } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook.entity';

/** The changes webhooks are made of: meetings' (their subjects a meeting or a participant). */
const MEETING_CHANGES = { subjectTypes: MEETING_SUBJECT_TYPES };

/** A delivery as queries and mutations answer it (never its body). */
export type WebhookDeliveryRecord = ReadModel<WebhookDelivery>;

/** An attempt as the endpoint's list answers it: with the delivery it tried. */
export type WebhookAttemptRecord = ReadModel<WebhookAttempt> & { delivery: WebhookDeliveryRecord };

/** A delivery the dispatcher makes: an event for an endpoint, its body as it will be sent. */
export type NewDelivery = Pick<
  WebhookDeliveryRecord,
  'endpointId' | 'eventType' | 'cursor' | 'meetingId'
> & { payload: string };

/** What an attempt needs: the delivery, its body, and where its endpoint is now. */
export interface DeliveryTarget {
  delivery: WebhookDeliveryRecord;
  payload: string;
  url: string;
  enabled: boolean;
}

/** An attempt as made. */
export type NewAttempt = Pick<
  ReadModel<WebhookAttempt>,
  | 'deliveryId'
  | 'endpointId'
  | 'number'
  | 'manual'
  | 'statusCode'
  | 'durationMs'
  | 'error'
  | 'succeeded'
  | 'retryAt'
> & { sentAt: Date };

export const deliveryNotFound = (): NotFoundError =>
  new NotFoundError('WEBHOOK_DELIVERY_NOT_FOUND', 'Webhook delivery not found');

const deliveries = readerOf(WebhookDelivery);
const attempts = readerOf(WebhookAttempt);
const attemptDeliveries = readerOf(WebhookDelivery, 'd_');
const D = `"${tableOf(WebhookDelivery)}"`;
const A = `"${tableOf(WebhookAttempt)}"`;
const E = `"${tableOf(WebhookEndpoint)}"`;
const PAYLOAD = `"${hiddenColumnOf(WebhookDelivery, 'payload')}"`;

const INSERT =
  `insert into ${D} ("id", "endpoint_id", "event_type", "cursor", "meeting_id", ${PAYLOAD}) ` +
  `select d."id", d."endpointId", d."eventType", d."cursor", d."meetingId", d."payload" ` +
  `from json_to_recordset(?::json) as d("n" int, "id" uuid, "endpointId" uuid, ` +
  `"eventType" text, "cursor" text, "meetingId" uuid, "payload" text) order by d."n" ` +
  `on conflict ("endpoint_id", "cursor") do nothing returning ${deliveries.select(D)}`;
const TARGET =
  `select ${deliveries.select('d')}, d.${PAYLOAD} as "payload", e."url" as "url", ` +
  `e."enabled" as "enabled" from ${D} d join ${E} e on e."id" = d."endpoint_id" where d."id" = ?`;
const LOCK = `select ${deliveries.select('d')} from ${D} d where d."id" = ? for update`;
const LOCK_ALL_OF = `select d."id" from ${D} d where d."endpoint_id" = ? order by d."id" for update`;
const OWN =
  `select ${deliveries.select('d')} from ${D} d join ${E} e on e."id" = d."endpoint_id" ` +
  `where d."id" = ? and e."user_id" = ?`;
const SETTLE =
  `update ${D} set "status" = ?, "attempt_count" = ?, "next_attempt_at" = ?, ` +
  `"updated_at" = now() where "id" = ?`;
const REOPEN =
  `update ${D} set "status" = 'pending', "next_attempt_at" = now(), "updated_at" = now() ` +
  `where "id" = ? returning ${deliveries.select(D)}`;
const PENDING_OF =
  `select ${deliveries.select('d')} from ${D} d where d."endpoint_id" = ? and ` +
  `d."status" = '${WebhookDeliveryStatus.PENDING}' ` +
  `order by string_to_array(d."cursor", '.')::numeric[]`;
const PRUNE =
  `delete from ${D} where "id" in (select "id" from ${D} where "status" <> 'pending' ` +
  `and "updated_at" < ? limit 1000) returning 1`;

const NEWEST_ATTEMPT_FIRST = byCreation<ReadModel<WebhookAttempt>>('a', 'desc');

/** Every read and write of deliveries and attempts, and the dispatcher's place in the log. */
export class WebhookDeliveryStore {
  private readonly cursor: DispatchCursor;

  constructor(private readonly em: EntityManager) {
    this.cursor = new DispatchCursor(em, 'webhook_dispatch');
  }

  /** The cursor of the last change the dispatcher made deliveries of. */
  dispatchedUpTo(): Promise<string> {
    return this.cursor.upTo();
  }

  /**
   * Moves the dispatcher from `from` to `to`, making room for `jobs` jobs: the run time of the
   * first of them, or null when another dispatcher moved it first (see DispatchCursor).
   */
  moveDispatch(from: string, to: string, jobs: number): Promise<string | null> {
    return this.cursor.moveTo(from, to, jobs);
  }

  /** Meetings' changes after `after` that no running transaction can still precede, in order. */
  async meetingChangesAfter(after: string, limit: number): Promise<ChangeNotice[]> {
    const read = await this.cursor.changesAfter(MEETING_CHANGES, after, limit);
    return read.map(noticeOf);
  }

  /** Writes deliveries, in order; one already there for its endpoint and change is left be. */
  async insert(made: readonly NewDelivery[]): Promise<WebhookDeliveryRecord[]> {
    if (made.length === 0) {
      return [];
    }
    const rows = made.map((delivery, n) => ({ n, id: randomUUID(), ...delivery }));
    return readAll(deliveries, await executeRows(this.em, INSERT, [JSON.stringify(rows)]));
  }

  /**
   * Queues jobs in this transaction: they exist if and only if it commits. Given `spacedFrom`,
   * they run from then on in the order given (see addJobsStatement).
   */
  async queue(jobs: readonly JobSpec[], spacedFrom: string | null = null): Promise<void> {
    if (jobs.length > 0) {
      const { sql, params } = addJobsStatement(jobs, spacedFrom);
      await executeRows(this.em, sql, params);
    }
  }

  async target(id: string): Promise<DeliveryTarget | null> {
    const [row] = await selectRows(this.em, TARGET, [id]);
    const delivery = row ? deliveries.read(row) : null;
    return row && delivery
      ? {
          delivery,
          payload: String(row['payload']),
          url: String(row['url']),
          enabled: row['enabled'] === true,
        }
      : null;
  }

  /** The delivery, its row held until the transaction ends; null if it is gone. */
  async lock(id: string): Promise<WebhookDeliveryRecord | null> {
    const [row] = await executeRows(this.em, LOCK, [id]);
    return row ? deliveries.read(row) : null;
  }

  /** Every delivery to an endpoint, their rows held until the transaction ends. */
  async lockAllOf(endpointId: string): Promise<void> {
    await executeRows(this.em, LOCK_ALL_OF, [endpointId]);
  }

  /** A delivery to one of the user's endpoints; WEBHOOK_DELIVERY_NOT_FOUND for any other. */
  async own(userId: string, id: string): Promise<WebhookDeliveryRecord> {
    const [row] = await selectRows(this.em, OWN, [id, userId]);
    const delivery = row ? deliveries.read(row) : null;
    if (!delivery) {
      throw deliveryNotFound();
    }
    return delivery;
  }

  async recordAttempt(attempt: NewAttempt): Promise<void> {
    const { sentAt, ...made } = attempt;
    const at = sentAt.toISOString();
    const { sql, params } = insertOf(WebhookAttempt, {
      ...made,
      id: randomUUID(),
      createdAt: at,
      updatedAt: at,
    });
    await executeRows(this.em, sql, params);
  }

  /** Where a delivery stands after an attempt. */
  async settle(
    id: string,
    state: Pick<WebhookDeliveryRecord, 'status' | 'attemptCount' | 'nextAttemptAt'>,
  ): Promise<void> {
    await executeRows(this.em, SETTLE, [state.status, state.attemptCount, state.nextAttemptAt, id]);
  }

  /** An endpoint's pending deliveries, in the log's order (a cursor's numbers compared). */
  async pendingOf(endpointId: string): Promise<WebhookDeliveryRecord[]> {
    return readAll(deliveries, await selectRows(this.em, PENDING_OF, [endpointId]));
  }

  /** A delivery pending again, its next attempt due now. */
  async reopen(id: string): Promise<WebhookDeliveryRecord> {
    const [row] = await executeRows(this.em, REOPEN, [id]);
    const delivery = row ? deliveries.read(row) : null;
    if (!delivery) {
      throw deliveryNotFound();
    }
    return delivery;
  }

  /** A slice of an endpoint's attempts, newest first, each with its delivery. */
  async attemptsOf(
    endpointId: string,
    request: SliceRequest,
  ): Promise<{ slice: Slice<WebhookAttemptRecord>; count: () => Promise<number> }> {
    const query = {
      select:
        `select ${attempts.select('a')}, ${attemptDeliveries.select('d')} from ${A} a ` +
        `join ${D} d on d."id" = a."delivery_id"`,
      where: `a."endpoint_id" = ?`,
      params: [endpointId],
    };
    const slice = await readSlice(this.em, query, NEWEST_ATTEMPT_FIRST, attempts, request);
    const records = slice.records.map((attempt, index) => {
      const row = slice.rows[index];
      const delivery = row ? attemptDeliveries.read(row) : null;
      if (!delivery) {
        throw new Error(`attempt ${attempt.id} has no delivery`);
      }
      return { ...attempt, delivery };
    });
    return { slice: { ...slice, records }, count: () => countList(this.em, query) };
  }

  /** Deletes up to 1,000 finished deliveries (and their attempts) last changed before `before`. */
  async prune(before: Date): Promise<number> {
    return (await executeRows(this.em, PRUNE, [before])).length;
  }
}
