import { withClient } from '../lib/db';

/**
 * The webhook pipeline as the primary has it at the end of a run, for details.json: how far the
 * dispatcher got in the change log, the deliveries by status, and graphile-worker's jobs and
 * queues (locked by whom, since when, with what last error). What a run that left webhooks
 * undelivered needs to tell where they stopped.
 */
export function jobState(primaryUrl: string): Promise<Record<string, unknown>> {
  return withClient(primaryUrl, async (client) => {
    const rows = async (text: string) => (await client.query(text)).rows;
    return {
      changeLog: await rows(
        `select max("tx"::text || '.' || "position"::text) as "newest", count(*)::int as "entries"
           from "change_log"`,
      ),
      dispatcher: await rows(`select * from "webhook_dispatch"`).catch((error: Error) => [
        error.message,
      ]),
      deliveries: await rows(
        `select "status", count(*)::int as "count", max("attempt_count") as "most_attempts"
           from "webhook_deliveries" group by 1 order by 1`,
      ),
      jobs: await rows(
        `select t."identifier" as "task", j."locked_by", count(*)::int as "count",
                min(j."locked_at") as "locked_since", min(j."run_at") as "first_due",
                max(j."attempts") as "most_attempts", max(j."last_error") as "a_last_error"
           from graphile_worker._private_jobs j
           join graphile_worker._private_tasks t on t."id" = j."task_id"
          group by 1, 2 order by 1, 2`,
      ),
      lockedQueues: await rows(
        `select "locked_by", count(*)::int as "count", min("locked_at") as "locked_since"
           from graphile_worker._private_job_queues where "locked_by" is not null group by 1`,
      ),
      heartbeats: await rows(`select * from "heartbeats" order by "seen_at" desc limit 20`).catch(
        (error: Error) => [error.message],
      ),
    };
  });
}
