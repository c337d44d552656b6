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

/** Free/busy time, meeting time suggestions, and conflicts. */
export const availabilityModule = defineModule({
  name: 'availability',
  resolvers: [
    AvailabilityResolver,
    MeetingConflictsResolver,
    CreateMeetingConflictsResolver,
    RescheduleMeetingConflictsResolver,
    AddParticipantConflictsResolver,
  ],
  stores: { availability: AvailabilityStore },
  services: {
    availability: (p: ServiceParts<AvailabilityStores, AvailabilityLoaders>) =>
      new AvailabilityService(p.stores, p.loaders),
  },
});
