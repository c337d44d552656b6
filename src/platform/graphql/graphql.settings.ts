import { z } from 'zod';
import { environmentSettings } from '../settings/environment.settings';
import { defineSettings } from '../settings/settings';
import { flag } from '../settings/values';

// What /graphql lets callers see and run. A leaf file, as cost.settings.ts.

/**
 * The operations /graphql and its subscriptions may run: `off`, any; `log`, any, unknown ones
 * logged; `enforce`, only the REST operations' documents and those of `file` (a manifest).
 */
export interface TrustedDocumentsConfig {
  mode: 'off' | 'log' | 'enforce';
  file: string | null;
}

/** Introspection, and the documents /graphql runs. */
export const graphqlSettings = defineSettings({
  area: 'GraphQL',
  reads: [environmentSettings],
  variables: {
    GRAPHQL_INTROSPECTION: flag().optional().meta({
      defaultText: 'on, off in production',
      description: 'schema introspection (the IDE needs it)',
    }),
    GRAPHQL_TRUSTED_DOCUMENTS: z
      .enum(['off', 'log', 'enforce'])
      .default('off')
      .meta({
        description:
          '`enforce`: /graphql runs only trusted documents; `log`: runs others and logs them ' +
          '([trusted documents](api.md#persisted-queries-and-trusted-documents))',
      }),
    GRAPHQL_TRUSTED_DOCUMENTS_FILE: z.string().min(1).optional().meta({
      description: 'manifest of more trusted documents (JSON, id → text), from a client build',
    }),
  },
  configOf: (env): { introspection: boolean; trustedDocuments: TrustedDocumentsConfig } => ({
    introspection: env.GRAPHQL_INTROSPECTION ?? env.NODE_ENV !== 'production',
    trustedDocuments: {
      mode: env.GRAPHQL_TRUSTED_DOCUMENTS,
      file: env.GRAPHQL_TRUSTED_DOCUMENTS_FILE ?? null,
    },
  }),
});
