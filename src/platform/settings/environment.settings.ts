import { z } from 'zod';
import { defineSettings } from './settings';

const ENVIRONMENTS = ['development', 'production', 'test'] as const;

/** The environment the service runs in. */
export type ServiceEnvironment = (typeof ENVIRONMENTS)[number];

/** Which environment the service runs in: several areas read it (production is stricter). */
export const environmentSettings = defineSettings({
  area: 'Environment',
  variables: {
    NODE_ENV: z
      .enum(ENVIRONMENTS)
      .default('development')
      .meta({
        description:
          '`production` refuses the default signing secret, turns introspection off and sends ' +
          'no mail without `SMTP_URL`; `development` or `test` otherwise',
      }),
  },
  configOf: (env): { env: ServiceEnvironment } => ({ env: env.NODE_ENV }),
});
