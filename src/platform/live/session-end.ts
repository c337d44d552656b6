import { z } from 'zod';

/**
 * The PostgreSQL channel on which every instance hears that sign-in sessions ended (logout, a
 * password change, deactivation, refresh-token reuse): sent by the statement that revokes them
 * (and by the trigger that revokes a deactivated user's, migration 20261126144400), so it is heard
 * when, and only if, the revocation commits.
 */
export const SESSION_ENDS_CHANNEL = 'session_ends';

/**
 * One notice of that channel: whose sessions ended, not which (a password change ends hundreds in
 * one notice, within NOTIFY's 8,000 bytes). Each instance re-checks that user's open connections.
 */
export const sessionEndNotice = z.object({ userId: z.uuid() });

export type SessionEndNotice = z.infer<typeof sessionEndNotice>;
