import type { EntityManager } from '@mikro-orm/postgresql';
import {
  hiddenColumnOf,
  idIn,
  type ReadModel,
  readerOf,
  tableOf,
  updateOf,
} from '../../platform/sql/read-model';
import { arrayLiteral, executeRows, readAll, type Row, selectRows } from '../../platform/sql/rows';
import { NotFoundError } from '../../platform/shared/errors';
import { WebhookEndpoint } from './webhook.entity';

/** An endpoint as queries and mutations answer it (never its secrets). */
export type WebhookEndpointRecord = ReadModel<WebhookEndpoint>;

/** What an owner may change of an endpoint, and what its deliveries change. */
export type EndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    | 'url'
    | 'eventTypes'
    | 'enabled'
    | 'disabledReason'
    | 'consecutiveFailures'
    | 'failingSince'
    | 'resumedAt'
  >
>;

/** An endpoint's sealed secrets: the current one, and the one before while it still signs. */
export interface SealedSecrets {
  current: string;
  previous: string | null;
}

export const endpointNotFound = (): NotFoundError =>
  new NotFoundError('WEBHOOK_ENDPOINT_NOT_FOUND', 'Webhook endpoint not found');

const endpoints = readerOf(WebhookEndpoint);
const T = `"${tableOf(WebhookEndpoint)}"`;
const SECRET = `"${hiddenColumnOf(WebhookEndpoint, 'secret')}"`;
const PREVIOUS = `"${hiddenColumnOf(WebhookEndpoint, 'previousSecret')}"`;
const PREVIOUS_UNTIL = `"${hiddenColumnOf(WebhookEndpoint, 'previousSecretUntil')}"`;
const RETURNING = `returning ${endpoints.select(T)}`;
const OLDEST_FIRST = `order by e."created_at", e."id"`;

const INSERT =
  `insert into ${T} ("id", "user_id", "url", "event_types", ${SECRET}) ` +
  `values (?, ?, ?, ?::text[], ?) ${RETURNING}`;
const OF_USER = `select ${endpoints.select('e')} from ${T} e where e."user_id" = ? ${OLDEST_FIRST}`;
const OWN = `select ${endpoints.select('e')} from ${T} e where e."id" = ? and e."user_id" = ?`;
const COUNT_OF_USER = `select count(*)::int as "n" from ${T} e where e."user_id" = ?`;
const ROTATE =
  `update ${T} set ${PREVIOUS} = ${SECRET}, ${PREVIOUS_UNTIL} = ?, ${SECRET} = ?, ` +
  `"updated_at" = now() where "id" = ? ${RETURNING}`;
const SECRETS =
  `select ${SECRET} as "current", case when ${PREVIOUS_UNTIL} > now() then ${PREVIOUS} end ` +
  `as "previous" from ${T} where "id" = ?`;
const SUBSCRIBED =
  `select ${endpoints.select('e')} from ${T} e where e."enabled" and ` +
  `e."event_types" && ?::text[] ${OLDEST_FIRST}`;
const SUCCEEDED =
  `update ${T} set "consecutive_failures" = 0, "failing_since" = null where "id" = ? ` +
  `and ("consecutive_failures" <> 0 or "failing_since" is not null)`;
// An attempt failed: failing since then, unless already; failing longer than the hours given,
// the endpoint is disabled, once (the row is locked: `disabled_now` compares it before and after).
const FAILED_ATTEMPT =
  `with "before" as (select "enabled", coalesce("failing_since", now()) as "since" from ${T} ` +
  `where "id" = ? for update) ` +
  `update ${T} t set "failing_since" = b."since", ` +
  `"enabled" = t."enabled" and b."since" > now() - ? * interval '1 hour', ` +
  `"disabled_reason" = case when t."enabled" and b."since" <= now() - ? * interval '1 hour' ` +
  `then ? else t."disabled_reason" end, "updated_at" = now() from "before" b where t."id" = ? ` +
  `returning (b."enabled" and not t."enabled") as "disabled_now"`;
// A failed event counts; at the limit the endpoint is disabled, once (one statement, so two
// deliveries failing at once count two and disable it once).
const FAILED_EVENT =
  `update ${T} set "consecutive_failures" = "consecutive_failures" + 1, ` +
  `"enabled" = "enabled" and "consecutive_failures" + 1 < ?, ` +
  `"disabled_reason" = case when "enabled" and "consecutive_failures" + 1 >= ? then ? ` +
  `else "disabled_reason" end, "updated_at" = now() where "id" = ? ` +
  `returning "enabled", ("enabled" is false and "consecutive_failures" = ?) as "disabled_now"`;

/** Every read and write of webhook endpoints. */
export class WebhookEndpointStore {
  constructor(private readonly em: EntityManager) {}

  private one(rows: readonly Row[]): WebhookEndpointRecord {
    const record = rows[0] ? endpoints.read(rows[0]) : null;
    if (!record) {
      throw endpointNotFound();
    }
    return record;
  }

  /** Holds the user's row until the transaction ends: their endpoints are counted one at a time. */
  async lockOwner(userId: string): Promise<void> {
    await executeRows(this.em, `select 1 from "users" where "id" = ? for update`, [userId]);
  }

  async countOf(userId: string): Promise<number> {
    const [row] = await selectRows(this.em, COUNT_OF_USER, [userId]);
    return Number(row?.['n'] ?? 0);
  }

  async insert(
    endpoint: Pick<WebhookEndpointRecord, 'id' | 'userId' | 'url' | 'eventTypes'>,
    sealedSecret: string,
  ): Promise<WebhookEndpointRecord> {
    const { id, userId, url, eventTypes } = endpoint;
    return this.one(
      await executeRows(this.em, INSERT, [id, userId, url, arrayLiteral(eventTypes), sealedSecret]),
    );
  }

  /** A user's endpoints, oldest first. */
  async ofUser(userId: string): Promise<WebhookEndpointRecord[]> {
    return readAll(endpoints, await selectRows(this.em, OF_USER, [userId]));
  }

  /** One of the user's endpoints; WEBHOOK_ENDPOINT_NOT_FOUND for any other (whoever owns it). */
  async own(userId: string, id: string): Promise<WebhookEndpointRecord> {
    return this.one(await selectRows(this.em, OWN, [id, userId]));
  }

  async update(id: string, changes: EndpointChanges): Promise<WebhookEndpointRecord> {
    const { sql, params } = updateOf(
      WebhookEndpoint,
      { ...changes, updatedAt: new Date().toISOString() },
      idIn([id]),
    );
    return this.one(await executeRows(this.em, `${sql} ${RETURNING}`, params));
  }

  /** A new secret; the old one keeps signing beside it until `previousUntil`. */
  async rotate(
    id: string,
    sealedSecret: string,
    previousUntil: Date,
  ): Promise<WebhookEndpointRecord> {
    return this.one(await executeRows(this.em, ROTATE, [previousUntil, sealedSecret, id]));
  }

  async remove(id: string): Promise<void> {
    await executeRows(this.em, `delete from ${T} where "id" = ?`, [id]);
  }

  /** An endpoint's sealed secrets (the previous one only while it still signs), or null. */
  async secrets(id: string): Promise<SealedSecrets | null> {
    const [row] = await selectRows(this.em, SECRETS, [id]);
    return row
      ? { current: String(row['current']), previous: (row['previous'] as string | null) ?? null }
      : null;
  }

  /** Enabled endpoints that receive any of `eventTypes`, oldest first. */
  async subscribedTo(eventTypes: readonly string[]): Promise<WebhookEndpointRecord[]> {
    return readAll(endpoints, await selectRows(this.em, SUBSCRIBED, [arrayLiteral(eventTypes)]));
  }

  /** An event was delivered: the failures in a row start again from 0. */
  async succeeded(id: string): Promise<void> {
    await executeRows(this.em, SUCCEEDED, [id]);
  }

  /**
   * An attempt failed: the endpoint is failing since now unless it was already; failing for
   * `hours` or longer, it is disabled with `reason`. Answers whether this one disabled it.
   */
  async failedAttempt(id: string, hours: number, reason: string): Promise<boolean> {
    const [row] = await executeRows(this.em, FAILED_ATTEMPT, [id, hours, hours, reason, id]);
    return row?.['disabled_now'] === true;
  }

  /**
   * An event failed every attempt: one more in a row; at `disableAfter` the endpoint is disabled
   * with `reason`. Answers whether this one disabled it.
   */
  async failedEvent(id: string, disableAfter: number, reason: string): Promise<boolean> {
    const [row] = await executeRows(this.em, FAILED_EVENT, [
      disableAfter,
      disableAfter,
      reason,
      id,
      disableAfter,
    ]);
    return row?.['disabled_now'] === true;
  }
}
