import { z } from 'zod';
import { RESOURCE_LIMITS } from './resource.limits';

// The resource settings' own validation, read by src/config.ts. A leaf file (zod and the limits
// only), so the configuration does not load the module.

/** RESOURCE_BOOKING_HORIZON_DAYS: how many days ahead a series books its rooms. */
export const bookingHorizonDays = z.coerce
  .number()
  .int()
  .min(RESOURCE_LIMITS.bookingHorizonDays.min)
  .max(RESOURCE_LIMITS.bookingHorizonDays.max)
  .default(RESOURCE_LIMITS.bookingHorizonDays.default);
