/**
 * The bounds of resources and their bookings: columns, validators, the settings and the docs read
 * them here (a file without imports, so the configuration can read it too).
 */
export const RESOURCE_LIMITS = {
  name: { min: 1, max: 100 },
  capacity: { min: 1, max: 10_000 },
  building: { max: 100 },
  floor: { max: 40 },
  features: { items: 20, length: 40 },
  /** Resources one meeting books at most. */
  perMeeting: 10,
  /**
   * Resources freeBusy answers about at most: with its 50 users, 90 entries of up to 1,000
   * ranges each stay within the GraphQL node limit (100,000).
   */
  freeBusy: 40,
  /** Rooms a suggestion search weighs at most (the smallest that fit first). */
  roomsWeighed: 200,
  /** How far ahead a series' occurrences are booked (RESOURCE_BOOKING_HORIZON_DAYS). */
  bookingHorizonDays: { min: 1, max: 3660, default: 365 },
} as const;
