import { z } from 'zod';
import { commaList } from '../../settings/values';

/** The settings of read replicas (docs/operations.md, "Read replicas"). */
export const REPLICA_ENV = {
  DATABASE_READ_URLS: commaList()
    .pipe(z.array(z.url({ protocol: /^postgres(ql)?$/, error: 'must be postgres:// URLs' })))
    .meta({
      description:
        'comma-separated streaming replicas of `DATABASE_URL` that reads outside transactions ' +
        'may use ([read replicas](operations.md#read-replicas))',
    }),
  DATABASE_READ_MAX_LAG_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5000)
    .meta({ description: 'a replica further behind the primary than this is skipped' }),
};

/** Where reads may go besides the primary, and how far behind they may be. */
export interface ReplicaConfig {
  urls: readonly string[];
  maxLagMs: number;
}

/** The replicas of a configuration (absent: none). */
export function replicasOf(env: {
  DATABASE_READ_URLS: string[];
  DATABASE_READ_MAX_LAG_MS: number;
}): { replicas: ReplicaConfig } | Record<string, never> {
  return env.DATABASE_READ_URLS.length > 0
    ? { replicas: { urls: env.DATABASE_READ_URLS, maxLagMs: env.DATABASE_READ_MAX_LAG_MS } }
    : {};
}
