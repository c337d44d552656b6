import { Webhook } from 'standardwebhooks';
import { laneOf } from '../../src/modules/webhook/webhook.jobs';
import { WEBHOOK_LIMITS } from '../../src/modules/webhook/webhook.limits';
import { compareCursors } from '../../src/platform/live/change-log';
import type { HookReceiver, Receipt } from '../lib/hook-receiver';
import { quantile } from '../lib/stats';

// The webhook scenario's receipts: counted by webhook-id as they come (to know when a phase's
// deliveries are all in), and checked once a run is over (signatures, each change once per
// endpoint, commit order in each of its lanes).

/** How long deliveries may take to arrive once the writes are done, before they count missing. */
export const DRAIN_MS = 180_000;

/** The receipts of one run, counted by webhook-id as they come. */
export class Deliveries {
  readonly byId = new Map<string, number>();
  /** When each distinct delivery first came (performance.now()), in order. */
  private readonly firstAt: number[] = [];
  private waiter: { count: number; resolve: (at: number) => void } | null = null;

  constructor(receiver: HookReceiver) {
    receiver.onReceipt = (receipt) => this.take(receipt);
  }

  get distinct(): number {
    return this.byId.size;
  }

  private take(receipt: Receipt): void {
    const id = String(receipt.headers['webhook-id']);
    const seen = this.byId.get(id) ?? 0;
    this.byId.set(id, seen + 1);
    if (seen === 0) {
      this.firstAt.push(receipt.at);
    }
    if (this.waiter && this.byId.size >= this.waiter.count) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve(receipt.at);
    }
  }

  /** When the `count`-th distinct delivery came (performance.now()), or null after `ms`. */
  reached(count: number, ms = DRAIN_MS): Promise<number | null> {
    const known = this.firstAt[count - 1];
    if (known !== undefined) {
      return Promise.resolve(known);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(null);
      }, ms);
      this.waiter = {
        count,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }
}

/** What a look at every receipt of a run found. */
export interface DeliveryCheck {
  /** Deliveries the changes logged for the run's meetings make (changes × endpoints). */
  expected: number;
  received: number;
  /** Deliveries (webhook-ids) received more than once, and the extra receipts. */
  duplicates: number;
  /** Changes of an endpoint that never arrived there. */
  missing: number;
  /** Receipts whose signature the endpoint's secret does not verify (Standard Webhooks). */
  badSignatures: number;
  /**
   * Receipts after one with a later cursor in the same lane of their endpoint: an endpoint's
   * attempts run in lanes (WEBHOOK_CONCURRENCY_PER_ENDPOINT, its default here), each in commit
   * order; across lanes receivers order by `data.cursor` (docs/webhooks.md).
   */
  outOfOrder: number;
}

/** What a delivery's body holds that the scenario reads. */
export interface Body {
  type: string;
  timestamp: string;
  data: { meetingId: string; cursor: string };
}

/**
 * Every receipt verified and placed: by webhook-id, and by endpoint and change (its cursor).
 * `cursors`: the changes every endpoint must receive; `secrets`: each endpoint's. Answers what it
 * found, and each receipt's body (in the receipts' order).
 */
export function checkReceipts(
  receipts: readonly Receipt[],
  secrets: readonly string[],
  cursors: readonly string[],
): { check: DeliveryCheck; bodies: Body[] } {
  const verifiers = secrets.map((secret) => new Webhook(secret));
  const seen = secrets.map(() => new Map<string, number>());
  /** The latest cursor received, by endpoint and lane. */
  const latest = new Map<string, string>();
  let badSignatures = 0;
  let outOfOrder = 0;
  const bodies: Body[] = [];
  const byId = new Map<string, number>();
  for (const receipt of receipts) {
    const id = String(receipt.headers['webhook-id']);
    byId.set(id, (byId.get(id) ?? 0) + 1);
    const verifier = verifiers[receipt.endpoint];
    let body: Body;
    try {
      if (!verifier) {
        throw new Error('no such endpoint');
      }
      body = verifier.verify(receipt.raw, receipt.headers as Record<string, string>) as Body;
    } catch {
      badSignatures += 1;
      body = JSON.parse(receipt.raw) as Body;
    }
    bodies.push(body);
    const atEndpoint = seen[receipt.endpoint];
    const cursor = body.data.cursor;
    atEndpoint?.set(cursor, (atEndpoint.get(cursor) ?? 0) + 1);
    const lane = `${receipt.endpoint}:${laneOf(cursor, WEBHOOK_LIMITS.concurrencyPerEndpoint.default)}`;
    if (compareCursors(cursor, latest.get(lane) ?? '0.0') < 0) {
      outOfOrder += 1;
    } else {
      latest.set(lane, cursor);
    }
  }
  const extra = (counts: Iterable<number>): number =>
    [...counts].reduce((n, count) => n + Math.max(0, count - 1), 0);
  const duplicates = Math.max(
    extra(byId.values()),
    seen.reduce((n, atEndpoint) => n + extra(atEndpoint.values()), 0),
  );
  const missing = seen.reduce(
    (n, atEndpoint) => n + cursors.filter((cursor) => !atEndpoint.has(cursor)).length,
    0,
  );
  return {
    check: {
      expected: cursors.length * secrets.length,
      received: receipts.length,
      duplicates,
      missing,
      badSignatures,
      outOfOrder,
    },
    bodies,
  };
}

/** The median gap between consecutive receipts at one endpoint, within [from, to]. */
export function medianGap(receipts: readonly Receipt[], from: number, to: number): number {
  const gaps: number[] = [];
  const last = new Map<number, number>();
  for (const receipt of receipts) {
    if (receipt.at < from || receipt.at > to) {
      continue;
    }
    const before = last.get(receipt.endpoint);
    if (before !== undefined) {
      gaps.push(receipt.at - before);
    }
    last.set(receipt.endpoint, receipt.at);
  }
  return quantile(Float64Array.from(gaps).sort(), 0.5);
}
