import {
  AddParticipantConflictsResolver,
  AvailabilityResolver,
  CreateMeetingConflictsResolver,
  MeetingConflictsResolver,
  RescheduleMeetingConflictsResolver,
} from './availability.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import {
  type AvailabilityLoaders,
  AvailabilityService,
  type AvailabilityStores,
} from './availability.service';
import { AvailabilityStore } from './availability.store';
import { startAwayDeclines } from './away-declines.worker';
import { AwayDeclineStore } from './away-declines.store';
import { AwayPeriod } from './away-period.entity';
import { AwayPeriodResolver } from './away-period.resolver';
import { type AwayStores, AwayPeriodService } from './away-period.service';
import { AwayPeriodStore } from './away-period.store';
import type { MeetingService } from '../meeting';

/** Free/busy time, meeting time suggestions, conflicts, and time away. */
export const availabilityModule = defineModule({
  name: 'availability',
  entities: [AwayPeriod],
  resolvers: [
    AvailabilityResolver,
    AwayPeriodResolver,
    MeetingConflictsResolver,
    CreateMeetingConflictsResolver,
    RescheduleMeetingConflictsResolver,
    AddParticipantConflictsResolver,
  ],
  stores: {
    availability: AvailabilityStore,
    awayPeriods: AwayPeriodStore,
    awayDeclines: AwayDeclineStore,
  },
  services: {
    availability: (p: ServiceParts<AvailabilityStores, AvailabilityLoaders>) =>
      new AvailabilityService(p.stores, p.loaders),
    awayPeriods: (p: ServiceParts<AwayStores, unknown, unknown, { meetings: MeetingService }>) =>
      new AwayPeriodService(p.stores, p.services.meetings),
  },
  worker: startAwayDeclines,
});
