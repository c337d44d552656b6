import type { Server } from '../lib/processes';
import { metricSum, metricsOf } from '../lib/metrics';
import { activeSubscriptions, untilActive } from './live-clients';
import { burstWrites, FAN_OUT, loggedCursors, type Write } from './fan-out-setup';
import { FanOutSubscriber, largeEvents } from './fan-out-subscriber';
import { log } from './progress';

// The fan-out pass's slow subscriber (round b): a guest of the first meeting over WebSocket that
// stops reading its socket while that meeting is written to in a burst, so that the service's
// queue of it overflows and the service closes it (1013 'Slow consumer'); it then reads again,
// and reconnects with `after: <the last cursor it received>`, and must have every change.

/** How long the service may take to close it once the burst is written. */
const CLOSE_WITHIN_MS = 20_000;
/** How long it may take to catch up with the burst once it reconnected. */
const CATCH_UP_MS = 60_000;

/** What happened to the slow subscriber before the write phase. */
export interface SlowStart {
  subscriber: FanOutSubscriber;
  burst: Write[];
  /** Events it had read when the service closed it (those in the sockets' buffers included). */
  receivedBeforeClose: number;
  /** ms from its pause to the service's close (seen in the service's metrics). */
  closedAfterMs: number;
  /** Seconds the burst's writes took. */
  burstSeconds: number;
}

/** The service's count of subscribers closed for not keeping up. */
async function slowClosed(service: Server): Promise<number> {
  const text = (await metricsOf(service)) ?? '';
  return metricSum(text, 'graphql_subscription_events_dropped_total{reason="slow_consumer"}');
}

/**
 * Watches the service until it closes a subscriber for not keeping up ('overflow'), or a
 * subscription ends otherwise ('ended': the slow subscriber's socket ended by the service's
 * keep-alive, whose pings it cannot answer, or someone else's), or `stop()` is called.
 */
function watchClose(service: Server, active: number) {
  let stopped = false;
  const outcome = (async (): Promise<'overflow' | 'ended' | 'stopped'> => {
    const dropped = await slowClosed(service);
    for (;;) {
      if (stopped) {
        return 'stopped';
      }
      // Both counts move in the same tick when a queue overflows: the close is read first.
      if ((await slowClosed(service)) > dropped) {
        return 'overflow';
      }
      if ((await activeSubscriptions(service)) < active) {
        return (await slowClosed(service)) > dropped ? 'overflow' : 'ended';
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    outcome,
    stop: () => {
      stopped = true;
    },
  };
}

/** Waits for `done`, polling; false when `ms` passed first. */
async function until(done: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Opens the slow subscriber (asking for large events: the meeting's description many times over,
 * so that a burst fills the sockets' buffers), pauses it, writes the burst, reads again once the
 * service closed it; answers once it has, after its reconnect, every change of the burst.
 */
export async function slowStart(
  dbUrl: string,
  service: Server,
  who: { userId: string; ownerToken: string },
  meetings: readonly string[],
  active: number,
  round: string,
): Promise<SlowStart> {
  const subscriber = new FanOutSubscriber(service, who.userId, 'websocket', {
    query: largeEvents(FAN_OUT.descriptionAliases),
    resume: true,
  });
  subscriber.open();
  await untilActive(service, active + 1);
  const watch = watchClose(service, active + 1);
  subscriber.pause();
  const pausedAt = performance.now();
  let closedAt = Number.NaN;
  // Reads again as soon as the service closed it (its close comes behind what it buffered),
  // before the service's pings go unanswered long enough for it to end the socket instead.
  const closed = watch.outcome.then((outcome) => {
    closedAt = performance.now();
    subscriber.resume();
    return outcome;
  });
  closed.catch(() => undefined);
  const giveUp = async (error: Error): Promise<never> => {
    watch.stop();
    await closed.catch(() => undefined);
    subscriber.leave();
    throw error;
  };
  const burst = await burstWrites(service, who.ownerToken, meetings, 0, round).catch(giveUp);
  const burstSeconds = (performance.now() - pausedAt) / 1000;
  if (!(await until(() => Number.isFinite(closedAt), CLOSE_WITHIN_MS))) {
    await giveUp(
      new Error(
        `fan-out: the slow subscriber was not closed within ${CLOSE_WITHIN_MS / 1000} s of a ` +
          `burst of ${FAN_OUT.burst} writes (written in ${burstSeconds.toFixed(1)} s) while it ` +
          'did not read: its events never overflowed its queue',
      ),
    );
  }
  if ((await closed) === 'ended') {
    await giveUp(
      new Error(
        'fan-out: a subscription ended before the slow subscriber’s queue overflowed ' +
          `(${((closedAt - pausedAt) / 1000).toFixed(1)} s after it stopped reading; the burst of ` +
          `${FAN_OUT.burst} writes took ${burstSeconds.toFixed(1)} s): the service ends a socket ` +
          'whose keep-alive ping goes unanswered for 12 s (12 s after the last), so the burst must ' +
          'fill its socket and queue sooner; a machine this busy cannot',
      ),
    );
  }
  const meetingId = meetings[0] as string;
  const caughtUp = await until(async () => {
    const owed = (await loggedCursors(dbUrl, [meetingId])).get(meetingId) ?? [];
    const got = new Set(subscriber.receipts.map((receipt) => receipt.cursor));
    return subscriber.closes.length > 0 && owed.every((cursor) => got.has(cursor));
  }, CATCH_UP_MS);
  log(
    `  slow subscriber: closed ${subscriber.closes.join(', ') || '(not yet)'} ` +
      `${((closedAt - pausedAt) / 1000).toFixed(1)} s after it stopped reading, with ` +
      `${subscriber.receivedAtClose[0] ?? '–'} of ${FAN_OUT.burst} events read; ` +
      (caughtUp ? 'resumed and caught up' : `not caught up within ${CATCH_UP_MS / 1000} s`),
  );
  return {
    subscriber,
    burst,
    receivedBeforeClose: subscriber.receivedAtClose[0] ?? Number.NaN,
    closedAfterMs: closedAt - pausedAt,
    burstSeconds,
  };
}
