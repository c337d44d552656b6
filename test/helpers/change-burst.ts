import { Client } from 'pg';
import { CHANGES_CHANNEL } from '../../src/platform/live/change-log';
import type { TestApp } from './test-app';

/**
 * Logs `count` UPDATED changes of a meeting in one transaction, as a busy meeting could produce
 * them all at once: the change feed reads them in one batch.
 */
export async function burstOfChanges(t: TestApp, meetingId: string, count: number): Promise<void> {
  const start = Date.now();
  const notices = Array.from({ length: count }, (_, i) => ({
    kind: 'UPDATED',
    meetingId,
    occurredAt: new Date(start + i).toISOString(),
  }));
  const admin = new Client({ connectionString: t.instance.database.url });
  await admin.connect();
  try {
    await admin.query('begin');
    await admin.query(
      'insert into change_log (kind, subject_type, subject_id, scope_id, occurred_at) ' +
        `select e.kind, 'meeting', e."meetingId", e."meetingId", e."occurredAt" ` +
        'from json_to_recordset($1::json) ' +
        'as e(kind text, "meetingId" uuid, "occurredAt" timestamptz)',
      [JSON.stringify(notices)],
    );
    await admin.query("select pg_notify($1, '')", [CHANGES_CHANNEL]);
    await admin.query('commit');
  } finally {
    await admin.end();
  }
}
