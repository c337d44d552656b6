import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ModuleWorker } from '../../../platform/composition/module';
import { DAY_MS } from '../../../platform/shared/time-zone';
import { inSqlTransaction } from '../../../platform/sql/sql-transaction';
import { BookingStore } from '../../resource';
import { isClosed } from '../meeting.rules';
import { MeetingStore } from '../meeting.store';
import { OccurrenceStore } from '../schedule';
import { bookingPlan } from './booking-plan';

/** What the job needs of the app. */
interface BookingHorizonRuntime {
  logger: Logger;
  deps: { bookingHorizonDays: number };
  /** An ORM of the job's own (its own small pool), closed by the job. */
  backgroundOrm(work: string, poolSize: number): Promise<MikroORM>;
}

/** How often series are looked at; one booked until less than a day short of the horizon is due. */
const SWEEP_MS = 3_600_000;
/** Series extended per transaction batch. */
const BATCH = 100;

/**
 * Books series' later occurrences as time passes: every hour (and at start), each series whose
 * resources are booked only until less than a day short of RESOURCE_BOOKING_HORIZON_DAYS ahead
 * is booked on to it, its row locked as a change of it would. An occurrence another meeting booked
 * first keeps that booking (the series goes without the room then). Every instance runs it; a
 * booking made twice is one (the constraint keeps it once), so they need no coordination.
 */
export async function startBookingHorizon(runtime: BookingHorizonRuntime): Promise<ModuleWorker> {
  const orm = await runtime.backgroundOrm('resource-bookings', 1);
  const log = runtime.logger.child({ component: 'resource-bookings' });
  const horizonDays = runtime.deps.bookingHorizonDays;
  let closed = false;

  const extend = async (meetingId: string, now: Date): Promise<void> => {
    await inSqlTransaction(orm.em.fork(), async (tx) => {
      const meeting = await new MeetingStore(tx).lock(meetingId);
      const bookings = new BookingStore(tx);
      if (!meeting || isClosed(meeting)) {
        // Nothing more to book: no longer due.
        await bookings.extend(meetingId, [], null);
        return;
      }
      const edits = (await new OccurrenceStore(tx).ofMeetings([meetingId])).get(meetingId) ?? [];
      const plan = bookingPlan(meeting, edits, now, horizonDays);
      await bookings.extend(meetingId, plan.spans, plan.bookedUntil);
    });
  };
  const sweep = async (): Promise<void> => {
    for (let full = true; full && !closed; ) {
      const now = new Date();
      const due = await new BookingStore(orm.em.fork()).due(
        new Date(now.getTime() + (horizonDays - 1) * DAY_MS),
        BATCH,
      );
      for (const meetingId of due) {
        if (!closed) {
          await extend(meetingId, now);
        }
      }
      full = due.length === BATCH;
    }
  };
  let chain = Promise.resolve();
  const run = (): void => {
    chain = chain
      .then(sweep)
      .catch((error: unknown) => log.warn({ err: error }, 'resource bookings: sweep failed'));
  };
  const every = setInterval(run, SWEEP_MS);
  every.unref();
  run();
  return {
    async close() {
      closed = true;
      clearInterval(every);
      await chain;
      await orm.close(true);
    },
  };
}
