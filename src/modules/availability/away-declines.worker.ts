import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { OperationContext } from '../../platform/composition/context';
import type { ModuleWorker } from '../../platform/composition/module';
import type { EventHub } from '../../platform/live/event-hub';
import {
  ALL_CHANGES_TOPIC,
  type ChangeNotice,
  isMeetingEvent,
  MeetingEventKind,
  type MeetingService,
} from '../meeting';
import { isVisibleUser, type UserRecord, UserStore } from '../user';
import { AwayDeclineStore, type SweepScope } from './away-declines.store';
import { awayDeclines, declineFor } from './away-period.service';

/** A context as the worker's declines use it: the invitee's meeting service. */
type DeclineContext = OperationContext<{ meetings: MeetingService }, unknown, UserRecord>;

/** What the worker needs of the app. */
interface AwayDeclinesRuntime {
  logger: Logger;
  /** This instance's committed changes, as its subscribers hear them. */
  hub: EventHub<ChangeNotice>;
  /** A context acting as `user` outside any request (a method: the app's is wider). */
  contextOf(user: UserRecord, over: EntityManager): DeclineContext;
  /** An ORM of the worker's own (its own small pool), closed by the worker. */
  backgroundOrm(work: string, poolSize: number): Promise<MikroORM>;
}

/** Changes that may put an invitation into someone's time away. */
const TIMED = new Set<string>([MeetingEventKind.PARTICIPANT_ADDED, MeetingEventKind.RESCHEDULED]);
/** Changes heard within this long make one sweep. */
const COALESCE_MS = 50;
/** How often every invitation is looked at (changes heard while this instance was away). */
const SWEEP_ALL_MS = 60_000;

/**
 * Declines invitations for invitees who are out of office then, as their own answer would (so the
 * inviter hears of it like any answer): each invitation or reschedule this instance hears of is
 * looked at within moments, and every invitation every minute and at start. Every instance does
 * the same; an answer given twice is written once, so they need no coordination.
 */
export async function startAwayDeclines(runtime: AwayDeclinesRuntime): Promise<ModuleWorker> {
  const orm = await runtime.backgroundOrm('away-declines', 1);
  const log = runtime.logger.child({ component: 'away-declines' });
  const meetingIds = new Set<string>();
  let chain: Promise<void> = Promise.resolve();
  let waking: NodeJS.Timeout | null = null;
  let closed = false;

  const sweep = async (scope: SweepScope): Promise<void> => {
    const em = orm.em.fork();
    const declines = await awayDeclines(new AwayDeclineStore(em), scope);
    if (declines.length === 0) {
      return;
    }
    const users = await new UserStore(em).byIds([...new Set(declines.map((d) => d.userId))]);
    const byId = new Map(users.filter(isVisibleUser).map((user) => [user.id, user]));
    for (const decline of declines) {
      const user = byId.get(decline.userId);
      if (user && !closed) {
        await declineFor(runtime.contextOf(user, orm.em.fork()).services.meetings, user, decline);
      }
    }
  };
  // One sweep at a time: each sees what the one before it wrote.
  const run = (scope: SweepScope): void => {
    chain = chain
      .then(() => (closed ? undefined : sweep(scope)))
      .catch((error: unknown) => log.warn({ err: error }, 'away declines: sweep failed'));
  };
  const wake = (): void => {
    waking ??= setTimeout(() => {
      waking = null;
      const ids = [...meetingIds];
      meetingIds.clear();
      run({ meetingIds: ids });
    }, COALESCE_MS);
  };
  const stopHearing = runtime.hub.on(ALL_CHANGES_TOPIC, (notice) => {
    if (isMeetingEvent(notice) && TIMED.has(notice.kind)) {
      meetingIds.add(notice.meetingId);
      wake();
    }
  });
  const every = setInterval(() => run('everyone'), SWEEP_ALL_MS);
  every.unref();
  run('everyone');
  return {
    async close() {
      closed = true;
      stopHearing();
      clearInterval(every);
      if (waking) {
        clearTimeout(waking);
      }
      await chain;
      await orm.close(true);
    },
  };
}
