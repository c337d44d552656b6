import DataLoader from 'dataloader';
import type { SliceRequest } from '../../platform/sql/keyset';
import type { Stores } from '../index';
import type { UserRecord } from '../user/user.store';
import type { ParticipantStatus } from './participant.entity';
import type { ParticipantSlice } from './participant.store';

/** Which participants of a meeting a connection lists: some answers (null: all). */
export interface ParticipantListKey {
  meetingId: string;
  statuses: readonly ParticipantStatus[] | null;
}

/** A slice of a meeting's participants, as a connection field asks for it. */
export interface ParticipantSliceKey extends ParticipantListKey {
  request: SliceRequest;
}

/** What a key asks for besides its meeting: keys alike in this are read by one statement. */
const filterOf = (key: ParticipantListKey): string => JSON.stringify(key.statuses ?? []);
const sliceOf = ({ statuses, request }: ParticipantSliceKey): string =>
  JSON.stringify([
    statuses ?? [],
    request.first ?? null,
    request.after ?? null,
    request.last ?? null,
    request.before ?? null,
  ]);

/**
 * Answers each key through `read`, one call per group of keys that differ only by meeting: a list
 * field under a list of meetings costs one statement per level, not one per meeting. A group that
 * fails (a foreign cursor) fails its own keys only.
 */
function byGroup<K extends ParticipantListKey, V>(
  groupOf: (key: K) => string,
  read: (meetingIds: string[], sample: K) => Promise<Map<string, V>>,
): DataLoader.BatchLoadFn<K, V> {
  return async (keys) => {
    const groups = new Map<string, K[]>();
    for (const key of keys) {
      const group = groups.get(groupOf(key));
      if (group) {
        group.push(key);
      } else {
        groups.set(groupOf(key), [key]);
      }
    }
    const answers = new Map<K, V | Error>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const ids = [...new Set(group.map((key) => key.meetingId))];
        try {
          const found = await read(ids, group[0] as K);
          for (const key of group) {
            answers.set(key, found.get(key.meetingId) as V);
          }
        } catch (error) {
          for (const key of group) {
            answers.set(key, error as Error);
          }
        }
      }),
    );
    return keys.map((key) => answers.get(key) as V | Error);
  };
}

/**
 * The loaders of meetings' participant connections: slices, and totals (read only when a client
 * selects `totalCount`). Users read along with a slice are handed to `primeUsers`.
 */
export function participantConnectionLoaders(
  stores: Stores,
  primeUsers: (users: readonly UserRecord[]) => void,
) {
  return {
    participantSlices: new DataLoader<ParticipantSliceKey, ParticipantSlice, string>(
      byGroup(sliceOf, async (ids, { statuses, request }) => {
        const found = await stores.participants.slicesOfMeetings(ids, statuses, request);
        for (const slice of found.values()) {
          primeUsers(slice.users);
        }
        return found;
      }),
      { cacheKeyFn: (key) => `${key.meetingId} ${sliceOf(key)}` },
    ),
    participantCounts: new DataLoader<ParticipantListKey, number, string>(
      byGroup(filterOf, (ids, { statuses }) => stores.participants.countsOfMeetings(ids, statuses)),
      { cacheKeyFn: (key) => `${key.meetingId} ${filterOf(key)}` },
    ),
  };
}
