import type { Client } from 'pg';
import { BACKGROUND_APPLICATION_PREFIX } from '../../src/platform/postgres/orm';

/**
 * Statements of the service's requests on `client`'s database waiting for a lock (not `client`'s
 * own). The service's background work (mail, availability, webhooks reading meetings) may wait
 * behind a test's lock too: its sessions are named apart (backgroundApplicationName), and left out.
 */
export async function waitingRequestStatements(client: Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
        and application_name not like $1 || '%'`,
    [BACKGROUND_APPLICATION_PREFIX],
  );
  return rows[0]?.n ?? -1;
}
