import { defineSettings } from '../../platform/settings/settings';
import { wholeNumber } from '../../platform/settings/values';
import { RESOURCE_LIMITS } from './resource.limits';

// The resource settings. A leaf file (zod, the settings' own files and the limits): the
// configuration reads it without loading the module.

/** Rooms and resources. */
export const resourceSettings = defineSettings({
  area: 'Rooms and resources',
  variables: {
    RESOURCE_BOOKING_HORIZON_DAYS: wholeNumber(RESOURCE_LIMITS.bookingHorizonDays).meta({
      description:
        `days ahead a series books its rooms (${RESOURCE_LIMITS.bookingHorizonDays.min} to ` +
        `${RESOURCE_LIMITS.bookingHorizonDays.max}; later ones are booked as time passes; ` +
        'see [Rooms](availability.md#rooms))',
    }),
  },
  configOf: (env): { resourceBookingHorizonDays: number } => ({
    /** How many days ahead a series' occurrences book its rooms and resources. */
    resourceBookingHorizonDays: env.RESOURCE_BOOKING_HORIZON_DAYS,
  }),
});
