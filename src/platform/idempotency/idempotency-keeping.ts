import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { IDEMPOTENCY_KEY_KEEP_MS, Idempotency } from './idempotency';
import { type AnswerSealer, IdempotencyKeys } from './idempotency-keys';

/** How often keys past their 24 hours are deleted. */
const PRUNE_EVERY_MS = 15 * 60_000;

/** Idempotency keys for one instance: the HTTP layer the faces use, and its stop. */
export interface IdempotencyKeeping {
  idempotency: Idempotency;
  /** Stops pruning and the retries of answers still to keep. */
  stop(): void;
}

/**
 * Starts keeping idempotency keys on `em` for the instance `instance` (its heartbeat id): a key
 * whose first request has run `abandonAfterMs` (its answer never kept), or whose instance died, is
 * abandoned, and the next retry takes it over. Every instance prunes keys past their 24 hours
 * (idempotent, and cheap when there is nothing to do).
 */
export function startIdempotency(options: {
  em: EntityManager;
  sealer: AnswerSealer;
  abandonAfterMs: number;
  instance: string;
  /** The scope a bearer token gives a key (its subject), or null for none. */
  callerOf: (authorization: string | undefined) => Promise<string | null>;
  logger: Logger;
}): IdempotencyKeeping {
  const keys = new IdempotencyKeys(
    options.em,
    options.sealer,
    { keepMs: IDEMPOTENCY_KEY_KEEP_MS, abandonAfterMs: options.abandonAfterMs },
    options.instance,
  );
  const idempotency = new Idempotency(keys, options.callerOf, options.logger);
  const pruning = setInterval(() => {
    keys.prune().catch(() => undefined);
  }, PRUNE_EVERY_MS).unref();
  return {
    idempotency,
    stop() {
      clearInterval(pruning);
      idempotency.stop();
    },
  };
}
