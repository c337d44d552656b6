import { z } from 'zod';

// The calendar settings' own validation, read by src/config.ts. A leaf file (zod only), so the
// configuration does not load the module.

/**
 * FEED_MAX_WAIT_MS: the longest a feed request waits for its turn to be built (calendar.routes.ts
 * FEED_BUILDS_AT_ONCE); past it the request is answered 503 with Retry-After at once, rather than
 * queued without bound behind a burst of calendar apps.
 */
export const feedMaxWaitMs = z.coerce.number().int().min(10).max(60_000).default(2000);
