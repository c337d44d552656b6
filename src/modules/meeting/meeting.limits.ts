// Imports nothing: the settings (meeting.settings.ts) read it before anything else is loaded.

/** The most participants a meeting holds, the owner included, unless configured. */
export const DEFAULT_MAX_PARTICIPANTS_PER_MEETING = 500;
