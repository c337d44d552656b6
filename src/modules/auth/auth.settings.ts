import { z } from 'zod';
import { defineSettings } from '../../platform/settings/settings';

// The sign-in settings. A leaf file (zod and the settings' own files): the configuration reads it
// without loading the module.

/** Who becomes an admin on signing in. */
export const authModuleSettings = defineSettings({
  area: 'Admins',
  about:
    '[Operations](operations.md#the-first-admin) explains how a service gets its first admins.',
  variables: {
    ADMIN_EMAILS: z
      .string()
      .default('')
      .meta({
        description:
          'comma-separated addresses whose accounts become admins when they sign in (once the ' +
          'address is verified)',
      }),
  },
  configOf: (env): { adminEmails: readonly string[] } => ({
    /** Accounts with these (lower-cased) addresses become admins when they sign in. */
    adminEmails: env.ADMIN_EMAILS.split(',')
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
  }),
});
