import { z } from 'zod';
import { defineSettings } from '../../platform/settings/settings';

// The calendar settings. A leaf file (zod and the settings' own files): the configuration reads it
// without loading the module.

/** Calendar feeds. */
export const calendarSettings = defineSettings({
  area: 'Calendar feeds',
  variables: {
    /**
     * The longest a feed request waits for its turn to be built (calendar.routes.ts
     * FEED_BUILDS_AT_ONCE); past it the request is answered 503 with Retry-After at once, rather
     * than queued without bound behind a burst of calendar apps.
     */
    FEED_MAX_WAIT_MS: z.coerce.number().int().min(10).max(60_000).default(2000).meta({
      description: 'longest a calendar feed request waits to be built; then 503 with `Retry-After`',
    }),
  },
  configOf: (env): { feedMaxWaitMs: number } => ({ feedMaxWaitMs: env.FEED_MAX_WAIT_MS }),
});
