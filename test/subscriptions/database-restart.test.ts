import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runningServerPid } from '../../src/platform/postgres/embedded/postgres-process';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import { LiveClient, waitForSubscriptions } from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { testDatabaseKind } from '../helpers/test-database';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * A real restart of the database under open subscriptions, on the embedded default: the service
 * starts its own embedded PostgreSQL on a private data directory (DATA_DIR, as without
 * DATABASE_URL); the test stops that server (a fast shutdown of its postmaster, which the service
 * did not ask for) and the service's supervision starts it again on the same port. The service is
 * not restarted; its event listener reconnects and events flow again. Runs once, in the embedded
 * project (the shared server is never restarted).
 */

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

const MEETING_EVENTS = `subscription ($meetingId: UUID!) {
  meetingEvents(meetingId: $meetingId) { kind meeting { title } }
}`;
const UPDATE = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;

type Event = { meetingEvents: { kind: string; meeting: { title: string } } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the server at `url` has the event listener connected (a fresh connection asks). */
async function listenerConnected(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    const found = await client.query('select 1 from pg_stat_activity where application_name = $1', [
      LISTENER_APPLICATION_NAME,
    ]);
    return (found.rowCount ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

suite('a database restart under open subscriptions', () => {
  let dataDir: string;
  let t: TestApp | null = null;
  let socket: LiveClient | null = null;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'meetings-subscriptions-restart-'));
  });
  afterAll(async () => {
    await socket?.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('recovers without a service restart, and events flow again', async () => {
    t = await startTestApp({}, { database: { kind: 'embedded', dataDir, poolSize: 5 } });
    const app = t;
    expect(app.instance.database.kind).toBe('embedded');
    const url = app.instance.database.url;
    const pgdata = join(dataDir, 'postgres');
    const [owner, guest] = (await app.seed.users(2)) as [SeededUser, SeededUser];
    const meeting = await app.seed.meeting(owner).inviting(guest).create();
    socket = LiveClient.open(app.url, guest.token);
    const events = socket.subscribe<Event>(MEETING_EVENTS, { meetingId: meeting.id });
    await waitForSubscriptions(app.instance, 1);
    const rename = (title: string) =>
      app.gql.request(UPDATE, { input: { meetingId: meeting.id, title } }, owner.token);

    expect((await rename('Before the restart')).errors).toBeUndefined();
    await events.received(1);

    // The database goes away (a fast shutdown of the server the service started), then comes
    // back on the same port: a new server, started by the service's supervision.
    const pid = runningServerPid(pgdata);
    expect(pid).not.toBeNull();
    process.kill(pid as number, 'SIGINT');
    const deadline = Date.now() + 30_000;
    let restartedPid = runningServerPid(pgdata);
    while (restartedPid === null || restartedPid === pid) {
      if (Date.now() > deadline) {
        throw new Error('the database server was not restarted within 30 s');
      }
      await sleep(50);
      restartedPid = runningServerPid(pgdata);
    }
    while (!(await listenerConnected(url))) {
      if (Date.now() > deadline) {
        throw new Error('the event listener did not reconnect within 30 s');
      }
      await sleep(100);
    }
    // The pool's connections died with the server: a write may fail (503) until it has new ones.
    while ((await rename('After the restart')).errors) {
      if (Date.now() > deadline) {
        throw new Error('writes did not succeed again within 30 s');
      }
      await sleep(100);
    }
    await events.received(2, 2_000);

    expect(events.data().map((event) => event.meetingEvents)).toEqual([
      { kind: 'UPDATED', meeting: { title: 'Before the restart' } },
      { kind: 'UPDATED', meeting: { title: 'After the restart' } },
    ]);
    expect(events.ended).toBeNull();
    // The supervisor says `up` once its own check that the server accepts connections returns,
    // which may come a moment after the listener's connection already did.
    const healthBy = Date.now() + 5_000;
    while (app.instance.database.embedded?.health() !== 'up' && Date.now() < healthBy) {
      await sleep(50);
    }
    expect(app.instance.database.embedded?.health()).toBe('up');
  }, 90_000);
});
