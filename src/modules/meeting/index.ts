import { MeetingResolver, ParticipantResolver } from './meeting.resolver';
import { MeetingLifecycleResolver } from './lifecycle/meeting-lifecycle.resolver';
import { OccurrenceResolver } from './schedule/occurrence.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { meetingSettings } from './meeting.settings';
import type { UserRecord } from '../user';
import { MeetingLifecycleService } from './lifecycle/meeting-lifecycle.service';
import { Meeting } from './meeting.entity';
import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from './meeting.limits';
import { MeetingService, type MeetingServiceLoaders, type MeetingStores } from './meeting.service';
import { meetingLoaders, MeetingStore } from './meeting.store';
import { MeetingConnection, ParticipantConnection } from './meeting.types';
import { OccurrenceChange } from './schedule/occurrence.entity';
import {
  type OccurrenceLoaders,
  occurrenceLoaders,
  OccurrenceStore,
} from './schedule/occurrence.store';
import { Participant } from './participants/participant.entity';
import type { BookingDeps, ResourceLoaders } from '../resource';
import { MeetingResourcesResolver } from './resources/meeting-resources.resolver';
import { MeetingResourcesService } from './resources/meeting-resources.service';
import { startBookingHorizon } from './resources/booking-horizon.worker';
import { ParticipantStore } from './participants/participant.store';

export type { Context as MeetingContext, MeetingServices } from './meeting.context';
export {
  ALL_CHANGES_TOPIC,
  type ChangeNotice,
  invitationTopic,
  isMeetingEvent,
  MEETING_SUBJECT_TYPES,
  meetingEntry,
  MeetingEventKind,
  type MeetingNotice,
  meetingTopic,
  noticeOf,
  topicsOf,
} from './meeting-event';
export { InputArgs } from './meeting.inputs';
export { MeetingIdArgs } from './meeting.inputs';
export { seenBy, seesMeeting } from './meeting.rules';
export { RescheduleMeetingPayload } from './lifecycle/meeting-lifecycle.types';
export { Meeting, MEETING_LIMITS, MeetingStatus } from './meeting.entity';
export { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from './meeting.limits';
export { readSnapshot } from './meeting.service';
export type { MeetingService, MeetingSnapshot } from './meeting.service';
export { MeetingStore } from './meeting.store';
export type { MeetingLoaders, MeetingRecord } from './meeting.store';
export { AddParticipantPayload, CreateMeetingPayload } from './meeting.types';
export { requireWindow } from './schedule/occurrence.service';
export {
  type OccurrenceChangeRecord,
  type OccurrenceLoaders,
  OccurrenceStore,
} from './schedule/occurrence.store';
export {
  OCCURRENCE_LIMITS,
  type Occurrence,
  type OccurrenceEdit,
  occurrencesOf,
} from './schedule/occurrence.rules';
export {
  ANSWER_REASON_MAX_LENGTH,
  Participant,
  ParticipantStatus,
} from './participants/participant.entity';
export type { ParticipantRecord } from './participants/participant.store';
export { calendarRule, Series, type Timing } from './schedule/recurrence.rules';

/** The loaders a meeting's reads hand the users they bring along to. */
interface UsersBelow {
  primeUsers(records: readonly UserRecord[]): void;
}

/** What meetings need of the process. */
interface MeetingDeps {
  /** The most participants a meeting holds, the owner included. */
  maxParticipantsPerMeeting: number;
}

/** What bookings of the meeting's resources need of the process (the resource module's). */
type Deps = MeetingDeps & BookingDeps;

/** Meetings: the meeting itself, its participants, its schedule and occurrences, its lifecycle. */
export const meetingModule = defineModule({
  name: 'meeting',
  settings: meetingSettings,
  entities: [Meeting, Participant, OccurrenceChange],
  resolvers: [
    MeetingResolver,
    ParticipantResolver,
    MeetingLifecycleResolver,
    OccurrenceResolver,
    MeetingResourcesResolver,
    MeetingConnection.resolver,
    ParticipantConnection.resolver,
  ],
  stores: {
    meetings: MeetingStore,
    participants: ParticipantStore,
    occurrences: OccurrenceStore,
  },
  loaders: (stores: MeetingStores, all: UsersBelow) => ({
    // Users are the user module's: reached when a read runs, whatever order loaders are built in.
    ...meetingLoaders(stores, (records) => all.primeUsers(records)),
    ...occurrenceLoaders(stores),
  }),
  services: {
    meetings: (p: ServiceParts<MeetingStores, MeetingServiceLoaders, Deps>) =>
      new MeetingService(
        p.stores,
        p.loaders,
        p.deps.maxParticipantsPerMeeting,
        p.deps.bookingHorizonDays,
      ),
    meetingLifecycle: (
      p: ServiceParts<MeetingStores, MeetingServiceLoaders & OccurrenceLoaders, Deps>,
    ) => new MeetingLifecycleService(p.stores, p.loaders, p.deps.bookingHorizonDays),
    meetingResources: (
      p: ServiceParts<MeetingStores, MeetingServiceLoaders & ResourceLoaders, Deps>,
    ) => new MeetingResourcesService(p.stores, p.loaders, p.deps.bookingHorizonDays),
  },
  // Participants past the cap are refused: a meeting's participant lists hold at most that.
  listBounds: (config: MeetingDeps | null) => [
    {
      parent: 'Meeting',
      items: 'Participant',
      max: config?.maxParticipantsPerMeeting ?? DEFAULT_MAX_PARTICIPANTS_PER_MEETING,
    },
  ],
  deps: (setup: { config: MeetingDeps }): MeetingDeps => ({
    maxParticipantsPerMeeting: setup.config.maxParticipantsPerMeeting,
  }),
  worker: startBookingHorizon,
});
