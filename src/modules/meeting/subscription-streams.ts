import type { Context } from '../index';
import type { ParticipantRecord } from './participant.store';
import { WrongTransportError } from '../../platform/shared/errors';
import { requireViewer } from '../../platform/auth/tokens';
import { END_OF_STREAM } from '../../platform/live/event-stream';
import type { LiveScope } from '../../platform/live/live-scope';
import { type ChangeNotice, invitationTopic, meetingTopic } from './meeting-event';
import type { MeetingEvent } from './meeting-event.type';

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
export function invitations(context: Context): AsyncIterableIterator<ParticipantRecord> {
  const live = requireLive(context);
  const viewer = requireViewer(context);
  return live.stream(invitationTopic(viewer.id), (notice) =>
    participantOf(context, notice.meetingId, notice.participantId),
  );
}

/**
 * One meeting's events for a caller who may see it (else MEETING_NOT_FOUND, as the query
 * answers). Each event is read as the caller may see it then; once they may not (removed from
 * the meeting), the subscription ends.
 */
export async function meetingEvents(
  context: Context,
  meetingId: string,
): Promise<AsyncIterableIterator<MeetingEvent>> {
  const live = requireLive(context);
  await context.services.meetings.get(requireViewer(context), meetingId);
  return live.stream(meetingTopic(meetingId), async (notice) => {
    const meeting = await context.services.meetings.visible(requireViewer(context), meetingId);
    if (!meeting) {
      return END_OF_STREAM;
    }
    return {
      kind: notice.kind,
      meeting,
      participant: await participantOf(context, meetingId, notice.participantId),
      userId: notice.userId,
      occurredAt: notice.occurredAt,
    };
  });
}
