import { Client } from 'pg';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';
import { useLiveClients, waitForSubscriptions } from '../helpers/live-client';
import { pgbouncerUrl, withPgbouncerAdmin } from '../helpers/pgbouncer';
import { waitingRequestStatements } from '../helpers/lock-waits';
import { RestClient } from '../helpers/rest-client';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { meetingBody } from '../rest/rest-fixtures';

/*
 * The service behind pgbouncer in transaction mode (DATABASE_POOLER=transaction): its statements
 * go through the pooler, which hands each transaction any server connection; LISTEN and
 * migrations go to DATABASE_DIRECT_URL; a request's deadline still cancels its statement. Only
 * the pgbouncer project runs this file (jest.config.js), which also runs REST contract suites
 * through the same pooler.
 */

const BUDGET_MS = 2000;
const TOLERANCE_MS = 1000;
const INVITATIONS = `subscription { invitationReceived { meetingId userId status } }`;

type Row = Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the service behind pgbouncer in transaction mode', () => {
  let t: TestApp;
  let rest: RestClient;
  let ada: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let direct: Client;
  let databaseName: string;
  const connect = useLiveClients();

  beforeAll(async () => {
    t = await startTestApp({ REQUEST_TIMEOUT_MS: String(BUDGET_MS) });
    rest = new RestClient(t.url);
    direct = new Client({ connectionString: t.instance.database.sessionUrl });
    await direct.connect();
    databaseName = new URL(t.instance.database.url).pathname.slice(1);
    [ada, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });
  afterAll(async () => {
    await direct?.end();
    await t?.close();
  });

  /** pgbouncer's figures for this file's database (SHOW STATS: totals since it started). */
  const stats = () =>
    withPgbouncerAdmin(async (admin) => {
      const { rows } = await admin.query<Row>('show stats');
      const row = rows.find((r) => r['database'] === databaseName);
      return { transactions: Number(row?.['total_xact_count'] ?? 0) };
    });

  it('sends its statements through pgbouncer and listens on the direct connection', async () => {
    const pooler = new URL(pgbouncerUrl() ?? '');
    const pooled = new URL(t.instance.database.url);
    expect(pooled.port).toBe(pooler.port);
    expect(new URL(t.instance.database.sessionUrl).port).not.toBe(pooler.port);

    const before = await stats();
    const me = await rest.get('/user/me', { token: ada.token });
    const created = await rest.post(
      '/meeting/create',
      { json: meetingBody([bob.id]) },
      { token: ada.token },
    );
    expect([me.status, created.status]).toEqual([200, 201]);
    const after = await stats();
    // Both requests' statements were transactions pgbouncer carried (its figures lag a moment).
    let transactions = after.transactions;
    for (let tries = 0; transactions - before.transactions < 2 && tries < 30; tries += 1) {
      await sleep(100);
      transactions = (await stats()).transactions;
    }
    expect(transactions - before.transactions).toBeGreaterThanOrEqual(2);

    // The listener holds a session on the server itself, not a client of pgbouncer.
    const { rows: listeners } = await direct.query<Row>(
      'select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = $2',
      [databaseName, LISTENER_APPLICATION_NAME],
    );
    expect(listeners).toEqual([{ n: 1 }]);
    const clients = await withPgbouncerAdmin(async (admin) => {
      const { rows } = await admin.query<Row>('show clients');
      return rows.filter((r) => r['database'] === databaseName);
    });
    expect(clients.length).toBeGreaterThan(0);
    expect(clients.map((c) => c['application_name'])).not.toContain(LISTENER_APPLICATION_NAME);
  });

  it('serves many requests at once over fewer server connections than it holds', async () => {
    // pgbouncer's pool (4) is smaller than the service's (5): connections take turns on servers,
    // where a statement named on one server connection would be missing on the next.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, k) =>
        k % 2 === 0
          ? rest.get('/user/me', { token: ada.token })
          : rest.get(`/user/${bob.account}`, { token: ada.token }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  });

  it('delivers a live event to a subscriber: NOTIFY in a pooled transaction, LISTEN direct', async () => {
    const socket = connect(t.url, bob.token);
    expect(await socket.acknowledged).toBe(true);
    const invitations = socket.subscribe(INVITATIONS);
    await waitForSubscriptions(t.instance, 1);
    const meeting = await t.seed.meeting(ada).inviting(carol).create();
    const added = await rest.post(
      `/meeting/${meeting.id}/participants/add`,
      { json: { user_id: bob.id } },
      { token: ada.token },
    );
    expect(added.status).toBe(200);
    await invitations.received(1, 2_000);
    expect(invitations.data()).toEqual([
      { invitationReceived: { meetingId: meeting.id, userId: bob.id, status: 'NEW' } },
    ]);
  });

  it('answers 503 at the deadline behind a locked table, and pgbouncer passes the cancel on', async () => {
    await direct.query('begin');
    await direct.query('lock table meetings in access exclusive mode');
    try {
      const started = performance.now();
      const pending = fetch(`${t.url}/api/v1/meeting/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ada.token}` },
        body: JSON.stringify(meetingBody([bob.id])),
      });
      const answer = await pending;
      const ms = performance.now() - started;
      expect({ status: answer.status, body: await answer.text() }).toEqual({
        status: 503,
        body: '{"errors":"SERVICE_UNAVAILABLE"}',
      });
      expect(Math.abs(ms - BUDGET_MS)).toBeLessThanOrEqual(TOLERANCE_MS);
      // The cancelled statement no longer waits for the lock, which is still held.
      let n = await waitingRequestStatements(direct);
      for (let tries = 0; n !== 0 && tries < 20; tries += 1) {
        await sleep(100);
        n = await waitingRequestStatements(direct);
      }
      expect(n).toBe(0);
    } finally {
      await direct.query('rollback');
    }
    // And the service goes on through the pooler.
    expect((await rest.get('/user/me', { token: ada.token })).status).toBe(200);
  });
});
