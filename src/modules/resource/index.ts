import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { resourceSettings } from './resource.settings';
import { BookingStore, MEETING_RESOURCES, RESOURCE_BOOKINGS } from './booking.store';
import { Resource } from './resource.entity';
import { ResourceResolver } from './resource.resolver';
import { type ResourceStores, ResourceService } from './resource.service';
import { resourceLoaders, ResourceStore } from './resource.store';
import { ResourceConnection } from './resource.types';

export { refusingOverlaps } from './booking.errors';
export { BookingStore, MEETING_RESOURCES, type ResourceTime } from './booking.store';
export { Resource } from './resource.entity';
export { RESOURCE_LIMITS } from './resource.limits';
export { ResourceFilterInput } from './resource.inputs';
export {
  type ResourceFilter,
  type ResourceLoaders,
  resourceNotFound,
  type ResourceRecord,
  RESOURCES,
  ResourceStore,
} from './resource.store';

/** What bookings need of the process. */
export interface BookingDeps {
  /** How many days ahead a series' occurrences are booked (RESOURCE_BOOKING_HORIZON_DAYS). */
  bookingHorizonDays: number;
}

/** Rooms and other resources: admins keep the list, meetings book them (see meeting/resources). */
export const resourceModule = defineModule({
  name: 'resource',
  settings: resourceSettings,
  entities: [Resource],
  tables: [MEETING_RESOURCES, RESOURCE_BOOKINGS],
  resolvers: [ResourceResolver, ResourceConnection.resolver],
  stores: { resources: ResourceStore, bookings: BookingStore },
  loaders: (stores: { readonly resources: ResourceStore; readonly bookings: BookingStore }) =>
    resourceLoaders(stores),
  services: {
    resources: (p: ServiceParts<ResourceStores>) => new ResourceService(p.stores),
  },
  deps: (setup: { config: { resourceBookingHorizonDays: number } }): BookingDeps => ({
    bookingHorizonDays: setup.config.resourceBookingHorizonDays,
  }),
});
