import { z } from 'zod';
import { defineSettings } from '../../platform/settings/settings';
import { DEFAULT_MAX_PARTICIPANTS_PER_MEETING } from './meeting.limits';

// The meeting settings. A leaf file (zod, the settings' own files and the limits): the
// configuration reads it without loading the module.

/** How many people a meeting holds. */
export const meetingSettings = defineSettings({
  area: 'Meetings',
  variables: {
    MAX_PARTICIPANTS_PER_MEETING: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(DEFAULT_MAX_PARTICIPANTS_PER_MEETING)
      .meta({
        description:
          'the most participants a meeting holds, the owner included: adding past it is ' +
          "refused (`MEETING_FULL`); it bounds what a meeting's lists count toward the node limit",
      }),
  },
  configOf: (env): { maxParticipantsPerMeeting: number } => ({
    maxParticipantsPerMeeting: env.MAX_PARTICIPANTS_PER_MEETING,
  }),
});
