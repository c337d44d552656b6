import type { Context } from './meeting-events.context';
import {
  type ChangeNotice,
  invitationTopic,
  isMeetingEvent,
  meetingTopic,
  type ParticipantRecord,
  seesMeeting,
} from '../meeting';
import { WrongTransportError } from '../../platform/shared/errors';
import { requireViewer } from '../../platform/auth/tokens';
import { END_OF_STREAM } from '../../platform/live/event-stream';
import type { LiveScope } from '../../platform/live/live-scope';
import { changesAfter, requireKept } from './meeting-events.store';
import { clientCursor } from '../../platform/live/change-log';
import type { Resume } from '../../platform/live/event-stream';
import type { MeetingEvent } from './meeting-events.types';
import { sharedSnapshot, visibleTopic } from './meeting-events.audience';

/** Subscriptions are served over WebSocket only (an HTTP request has no events to wait for). */
function requireLive(context: Context): LiveScope<ChangeNotice> {
  if (!context.live) {
    throw new WrongTransportError('SUBSCRIPTION_NEEDS_WEBSOCKET');
  }
  return context.live;
}

/** The participant `id` of a meeting, read through the (renewed) context's loaders. */
async function participantOf(
  context: Context,
  meetingId: string,
  id: string | null,
): Promise<ParticipantRecord | null> {
  if (!id) {
    return null;
  }
  const participants = await context.loaders.participantsByMeeting.load(meetingId);
  return participants.find((participant) => participant.id === id) ?? null;
}

/** The caller's invitations as they arrive: each while the caller still has it. */
export function invitations(context: Context): Promise<AsyncIterableIterator<ParticipantRecord>> {
  const live = requireLive(context);
  const viewer = requireViewer(context);
  return live.stream(invitationTopic(viewer.id), (notice) =>
    notice.meetingId
      ? participantOf(context, notice.meetingId, notice.participantId)
      : Promise.resolve(null),
  );
}

/** A change's meeting as read once for this instance's subscribers (see sharedSnapshot). */
const snapshotOf = (context: Context, notice: ChangeNotice & { meetingId: string }) =>
  sharedSnapshot(notice, (meetingId) => context.services.meetings.snapshot(meetingId));

/**
 * Whether a change is of a meeting the caller may see, judged on the shared read (the relay's):
 * the relay hands on only such changes, but a change it could not judge reaches everyone, and
 * an admin's role may have gone since the subscription began.
 */
async function mayConcern(context: Context, notice: ChangeNotice): Promise<boolean> {
  if (!isMeetingEvent(notice)) {
    return false;
  }
  const { meeting, participants } = await snapshotOf(context, notice);
  return meeting !== null && seesMeeting(requireViewer(context), meeting, participants);
}

/** A change as a subscriber receives it (see `eventOf`), its meeting read once per instance. */
async function liveEventOf(context: Context, notice: ChangeNotice): Promise<MeetingEvent | null> {
  if (isMeetingEvent(notice)) {
    context.services.meetings.adopt(notice.meetingId, await snapshotOf(context, notice));
  }
  return eventOf(context, notice);
}

/** Changes replayed a page at a time. */
const REPLAY_PAGE = 200;

/** A change as the caller receives it, read as they may see it now; null if they may not. */
export async function eventOf(
  context: Context,
  notice: ChangeNotice,
): Promise<MeetingEvent | null> {
  if (!isMeetingEvent(notice)) {
    return null;
  }
  const meeting = await context.services.meetings.visible(requireViewer(context), notice.meetingId);
  if (!meeting) {
    return null;
  }
  return {
    cursor: notice.cursor,
    kind: notice.kind,
    meeting,
    participant: await participantOf(context, notice.meetingId, notice.participantId),
    userId: notice.userId,
    occurredAt: notice.occurredAt,
  };
}

/** Where a resumed subscription starts, checked (malformed: a field error; too old: expired). */
async function resumeAfter(
  context: Context,
  after: string | null | undefined,
  scope: Parameters<typeof changesAfter>[1],
): Promise<Resume<ChangeNotice> | undefined> {
  const cursor = clientCursor('after', after);
  if (cursor === null) {
    return undefined;
  }
  await requireKept(context.em, cursor);
  return {
    after: cursor,
    // Each page with a fresh entity manager: the stream outlives any one context's reads.
    replay: (from, upTo) => changesAfter(context.em.fork(), scope, from, REPLAY_PAGE, upTo),
  };
}

/**
 * One meeting's events for a caller who may see it (else MEETING_NOT_FOUND, as the query
 * answers), first those after `after` if given. Each event is read as the caller may see it
 * then; once they may not (removed from the meeting), the subscription ends.
 */
export async function meetingEvents(
  context: Context,
  meetingId: string,
  after?: string | null,
): Promise<AsyncIterableIterator<MeetingEvent>> {
  const live = requireLive(context);
  await context.services.meetings.get(requireViewer(context), meetingId);
  const resume = await resumeAfter(context, after, { meetingId });
  return live.stream(
    meetingTopic(meetingId),
    async (notice) => (await liveEventOf(context, notice)) ?? END_OF_STREAM,
    { resume },
  );
}

/**
 * Every event of every meeting the caller may see (invitations to the caller included), first
 * those after `after` if given; events of meetings the caller may not see are skipped.
 */
export async function myMeetingEvents(
  context: Context,
  after?: string | null,
): Promise<AsyncIterableIterator<MeetingEvent>> {
  const live = requireLive(context);
  const viewer = requireViewer(context);
  const resume = await resumeAfter(context, after, { viewer });
  // The changes of the meetings the caller may see, handed on by this instance's relay (a
  // subscriber hears and queues only its own); each is still judged as the caller sees it now.
  return live.stream(visibleTopic(viewer), (notice) => liveEventOf(context, notice), {
    resume,
    admits: (notice) => mayConcern(context, notice),
  });
}
