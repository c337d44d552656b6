/** Where the calendar routes are mounted. */
export const CALENDAR_PATH = '/calendar';

/** A personal feed, named by its secret (under CALENDAR_PATH). */
export const FEED_ROUTE = '/:secret.ics';

/** One meeting, for a caller with a bearer token (under CALENDAR_PATH). */
export const MEETING_ROUTE = '/meetings/:meetingId.ics';

/** The address of the feed of `secret`, under the service's public base URL. */
export const feedUrl = (publicUrl: string, secret: string): string =>
  `${publicUrl.replace(/\/+$/, '')}${CALENDAR_PATH}/${secret}.ics`;
