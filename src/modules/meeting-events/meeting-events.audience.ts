import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ModuleWorker } from '../../platform/composition/module';
import { relayAudience } from '../../platform/live/audience-relay';
import type { EventHub } from '../../platform/live/event-hub';
import {
  ALL_CHANGES_TOPIC,
  type ChangeNotice,
  isMeetingEvent,
  type MeetingSnapshot,
  MeetingStore,
  readSnapshot,
  seenBy,
} from '../meeting';
import { isAdmin, type UserRecord } from '../user';

/** The family of the topics of what each user may see (`myMeetingEvents` hears its own). */
const VISIBLE = 'visible';
/** The topic of the changes every admin may see: all of them. */
const SEEN_BY_ADMINS = `${VISIBLE}:*`;
const seenByUser = (userId: string): string => `${VISIBLE}:${userId}`;

/** The topic of the changes `viewer` may see: their own, or the admins'. */
export const visibleTopic = (viewer: Pick<UserRecord, 'id' | 'roles' | 'isSuperuser'>): string =>
  isAdmin(viewer) ? SEEN_BY_ADMINS : seenByUser(viewer.id);

/**
 * Each change's meeting as this instance reads it for its subscribers: once, by whichever asks
 * first (the relay, as a rule), for all of them (a notice is one object for every subscriber of an
 * instance; replayed notices are each subscriber's own). A read that failed is not kept: the next
 * asks again.
 */
const shared = new WeakMap<ChangeNotice, Promise<MeetingSnapshot>>();

export function sharedSnapshot(
  notice: ChangeNotice & { meetingId: string },
  read: (meetingId: string) => Promise<MeetingSnapshot>,
): Promise<MeetingSnapshot> {
  let snapshot = shared.get(notice);
  if (!snapshot) {
    snapshot = read(notice.meetingId);
    shared.set(notice, snapshot);
    snapshot.catch(() => shared.delete(notice));
  }
  return snapshot;
}

/** The topics of those who may see a change: its meeting's owner and participants, the admins. */
async function audienceOf(
  notice: ChangeNotice,
  read: (meetingId: string) => Promise<MeetingSnapshot>,
): Promise<string[]> {
  if (!isMeetingEvent(notice)) {
    return [];
  }
  const { meeting, participants } = await sharedSnapshot(notice, read);
  return meeting ? [...seenBy(meeting, participants).map(seenByUser), SEEN_BY_ADMINS] : [];
}

/** What the relay needs of the app. */
interface AudienceRuntime {
  hub: EventHub<ChangeNotice>;
  deps: { orm: MikroORM };
  logger: Logger;
}

/**
 * Hands every change this instance hears to the topics of those who may see it, so that each
 * `myMeetingEvents` subscriber queues only its own events (see relayAudience).
 */
export function startAudienceRelay(runtime: AudienceRuntime): Promise<ModuleWorker> {
  const { hub, deps, logger } = runtime;
  const read = (meetingId: string) => readSnapshot(new MeetingStore(deps.orm.em.fork()), meetingId);
  const stop = relayAudience(hub, {
    from: ALL_CHANGES_TOPIC,
    family: VISIBLE,
    audienceOf: (notice) => audienceOf(notice, read),
    onError: (error) =>
      logger.warn(
        { component: 'events', err: error },
        'who may see a change could not be read: every subscriber of all changes judges it',
      ),
  });
  return Promise.resolve({
    close: () => {
      stop();
      return Promise.resolve();
    },
  });
}
