import { inKeyOrder, KnownLoader } from '../../platform/shared/known-loader';
import type { Stores } from '../index';
import type { UserRecord } from '../user/user.store';
import type { MeetingRecord } from './meeting.store';
import { participantConnectionLoaders } from './participant.loaders';
import type { ParticipantRecord } from './participant.store';

/**
 * A request's loaders of meetings and their participants. Reads that bring related records along
 * hand them to their loaders here: a meeting's participants, and their users (`primeUsers`).
 */
export function meetingLoaders(
  stores: Stores,
  primeUsers: (records: readonly UserRecord[]) => void,
) {
  const participantsByMeeting = new KnownLoader<string, ParticipantRecord[]>(async (ids) => {
    const found = await stores.participants.ofMeetings(ids);
    primeUsers(found.users);
    return ids.map((id) => found.byMeeting.get(id) ?? []);
  });
  const meetings = new KnownLoader<string, MeetingRecord | null>(async (ids) => {
    const found = await stores.meetings.withParticipants(ids);
    primeUsers(found.users);
    for (const [meetingId, participants] of found.byMeeting) {
      participantsByMeeting.prime(meetingId, participants);
    }
    return inKeyOrder(ids, found.meetings);
  });
  const connections = participantConnectionLoaders(stores, primeUsers);
  return {
    ...connections,
    meetings,
    participantsByMeeting,
    /** Drops cached reads of a meeting the request has just changed. */
    forgetMeeting(meetingId: string): void {
      meetings.clear(meetingId);
      participantsByMeeting.clear(meetingId);
      // Keyed by meeting and arguments: a write is rare enough to forget every slice read.
      connections.participantSlices.clearAll();
      connections.participantCounts.clearAll();
    },
  };
}
