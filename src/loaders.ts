import DataLoader from 'dataloader';
import { KnownLoader } from './shared/known-loader';
import type { MeetingRecord } from './modules/meeting/meeting.store';
import type { ParticipantRecord } from './modules/participant/participant.store';
import { participantConnectionLoaders } from './modules/participant/participant.loaders';
import type { UserRecord } from './modules/user/user.store';
import type { Stores } from './stores';

/** Answers a batch's records in the order of its keys (null where none was found). */
function inKeyOrder<R extends { id: string }>(
  keys: readonly string[],
  records: readonly R[],
): (R | null)[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  return keys.map((key) => byId.get(key) ?? null);
}

/**
 * Per-request batch loaders, created with the request's context so batching never leaks. Reads
 * that bring related records along hand them to their loaders here, the one place priming is
 * composed: a meeting's participants and their users, a follow list's users, the caller.
 */
export function createLoaders(stores: Stores) {
  const users = new KnownLoader<string, UserRecord | null>(async (ids) =>
    inKeyOrder(ids, await stores.users.byIds(ids)),
  );
  const primeUsers = (records: readonly UserRecord[]): void => {
    for (const user of records) {
      users.prime(user.id, user);
    }
  };
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
    users,
    meetings,
    participantsByMeeting,
    followingCount: new DataLoader<string, number>((ids) =>
      stores.users.followCounts('follower', ids),
    ),
    followersCount: new DataLoader<string, number>((ids) =>
      stores.users.followCounts('following', ids),
    ),
    primeUsers,
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

export type Loaders = ReturnType<typeof createLoaders>;
