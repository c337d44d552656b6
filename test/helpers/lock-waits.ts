import type { Client } from 'pg';

/**
 * Writes of `client`'s database waiting for a lock, but `client`'s own statement. Reads are left
 * out: the service's background work (mail and availability reading meetings) may wait behind a
 * test's lock too, while a request's waiting statement there is a write.
 */
export async function waitingWrites(client: Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
        and query not ilike 'select%'`,
  );
  return rows[0]?.n ?? -1;
}
