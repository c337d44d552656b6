import type { Pool } from 'pg';
import type { Logger } from 'pino';

/**
 * Who is alive: each instance, and each of its job workers, says so every HEARTBEAT_MS in one
 * table (a migration makes it). What a party no longer seen for DEAD_AFTER_MS holds (a job's
 * lock, an idempotency key's claim) belongs to a process that died, killed or cut off from the
 * database, and is taken over by the others rather than after a long timeout.
 */
export const HEARTBEATS_TABLE = 'heartbeats';

/** How often an instance and its workers say they are alive. */
export const HEARTBEAT_MS = 2_000;
/**
 * Unseen this long, a party is dead. Five heartbeats: a busy event loop or a slow statement does
 * not make a live one look dead.
 */
export const DEAD_AFTER_MS = 10_000;

/** The statement that marks the ids `$1` (text[]) seen now. */
export const MARK_SEEN =
  `insert into "${HEARTBEATS_TABLE}" ("id", "seen_at") select unnest($1::text[]), now() ` +
  `on conflict ("id") do update set "seen_at" = excluded."seen_at"`;

/**
 * SQL that is true when the party `column` names (a column of the outer statement) has been seen
 * within DEAD_AFTER_MS.
 */
export const seenRecently = (column: string): string =>
  `exists (select 1 from "${HEARTBEATS_TABLE}" h where h."id" = ${column} ` +
  `and h."seen_at" > now() - interval '${DEAD_AFTER_MS} milliseconds')`;

/**
 * Runs `beat` now and every HEARTBEAT_MS (its failures are its own to report); `stop` ends the
 * loop once the beat under way, if any, has finished.
 */
export function heartbeatLoop(beat: () => Promise<unknown>): { stop(): Promise<void> } {
  let running: Promise<unknown> = beat();
  const timer = setInterval(() => {
    running = beat();
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Says every HEARTBEAT_MS that the instance `id` is alive, on the instance's own pool (a
 * connection of its own would be one more per instance on the server, which runs out of them
 * first). Behind a pool that stays full for DEAD_AFTER_MS the instance may look dead: a retry
 * then takes over a key whose request still runs here, and that request's write is refused at its
 * commit (the key's owner is checked in the write's own transaction), never made twice. A
 * database away leaves it quiet: the next heartbeat tries again.
 */
export function startInstanceHeartbeat(
  pool: Pick<Pool, 'query'>,
  id: string,
  logger: Logger,
): { stop(): Promise<void> } {
  return heartbeatLoop(() =>
    pool
      .query(MARK_SEEN, [[id]])
      .catch((error: unknown) =>
        logger.debug({ component: 'heartbeat', err: error }, 'heartbeat failed'),
      ),
  );
}
