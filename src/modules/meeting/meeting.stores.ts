import type { StoreSet } from '../../platform/composition/context';
import type { ChangeLogStore } from '../../platform/live/change-log';
import type { BookingStore, ResourceStore } from '../resource';
import type { UserStore } from '../user';
import type { MeetingStore } from './meeting.store';
import type { OccurrenceStore } from './schedule/occurrence.store';
import type { ParticipantStore } from './participants/participant.store';

/** The stores meetings, their participants and their lifecycle work with. */
export type MeetingStores = StoreSet<{
  resources: ResourceStore;
  bookings: BookingStore;
  users: UserStore;
  meetings: MeetingStore;
  participants: ParticipantStore;
  occurrences: OccurrenceStore;
  events: ChangeLogStore;
}>;
