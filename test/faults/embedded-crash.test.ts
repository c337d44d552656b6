import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDatabaseKind } from '../helpers/test-database';
import { useEmbeddedFixture } from './support/embedded-fixture';
import { call, isSuccess, MixedLoad, PASSWORD, tally, type User } from './support/load';
import type { ServiceProcess } from './support/service';

/**
 * kill -9 in the middle of writes on the embedded database (DATA_DIR): the directory
 * opens again, and every write acknowledged before the kill is there. Twice, on the same
 * directory: the service alone (its server shuts down behind it), then the service and the
 * database server together (the server recovers from its WAL). (A clean restart keeping the data: test/db/migrations.test.ts and sigterm.test.ts.)
 * Runs once, in the embedded jest project.
 */

const CRASHES = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

/** The pid of the embedded PostgreSQL server running on a data directory. */
function serverPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** All of a user's follows (following ids), page by page. */
async function followingIds(url: string, token: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let skip = 0; ; skip += 100) {
    const page = await call(url, 'GET', `/api/v1/follow/following?skip=${skip}&limit=100`, {
      token,
    });
    if (page.status !== 200) {
      throw new Error(`following: ${page.status} ${JSON.stringify(page.body)}`);
    }
    const body = page.body as { data: Array<{ following_id: string }>; count: number };
    for (const entry of body.data) {
      ids.add(entry.following_id);
    }
    if (body.data.length < 100) {
      return ids;
    }
  }
}

suite('kill -9 during writes on the embedded database', () => {
  const fixture = useEmbeddedFixture('crash');
  const start = (): Promise<ServiceProcess> => fixture.start({}, { startTimeoutMs: 40_000 });

  it('opens again after each crash with every acknowledged write present', async () => {
    const users: User[] = [];
    const follows: Array<{ follower: string; following: string }> = [];
    const actors: Array<User & { token?: string }> = [];
    const summary: string[] = [];
    let acknowledged = 0;

    for (let crash = 1; crash <= CRASHES; crash += 1) {
      const service = await start();
      const load = new MixedLoad(service.url, {
        clients: 3,
        tag: `k${crash}${randomBytes(3).toString('hex')}`,
        graphql: true,
      });
      await load.setup();
      load.start();
      // Let writes run, then kill in the middle of them.
      await waitForWrites(load, 15);
      await sleep(300);
      if (crash % 2 === 0) {
        // The database server dies with it this time, as in a power cut: WAL recovery at restart.
        process.kill(serverPid(fixture.dataDir), 'SIGKILL');
      }
      const exit = await service.kill();
      expect(exit.signal).toBe('SIGKILL');
      await load.stop();

      // Every reply received is an acknowledgement, also one read after the kill: the service may
      // have written it just before it died. The load keeps each acknowledged user and follow.
      acknowledged += load.outcomes.filter(isSuccess).length;
      users.push(...load.users);
      follows.push(...load.follows);
      actors.push(...load.actorUsers);
      summary.push(
        `crash ${crash}: ${load.outcomes.length} requests ${JSON.stringify(tally(load.outcomes))}`,
      );
    }

    // The directory opens, and is ready.
    const service = await start();
    const ready = await call(service.url, 'GET', '/health/readiness');
    expect(ready.status).toBe(204);

    // Every acknowledged registration is there...
    const viewer = actors[0] as User;
    const login = await call(service.url, 'POST', '/api/v1/auth/login', {
      json: { email: viewer.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const token = (login.body as { access_token: string }).access_token;
    const missingUsers: string[] = [];
    for (const user of users) {
      const found = await call(service.url, 'GET', `/api/v1/user/${user.account}`, { token });
      if (found.status !== 200 || (found.body as { id?: string }).id !== user.id) {
        missingUsers.push(`${user.account}: ${found.status}`);
      }
    }
    // ... and every acknowledged follow.
    const missingFollows: string[] = [];
    for (const actor of actors) {
      const mine = follows.filter((follow) => follow.follower === actor.id);
      if (mine.length === 0) {
        continue;
      }
      const actorLogin = await call(service.url, 'POST', '/api/v1/auth/login', {
        json: { email: actor.email, password: PASSWORD },
      });
      expect(actorLogin.status).toBe(200);
      const ids = await followingIds(
        service.url,
        (actorLogin.body as { access_token: string }).access_token,
      );
      missingFollows.push(
        ...mine.filter((f) => !ids.has(f.following)).map((f) => `${f.follower}>${f.following}`),
      );
    }
    console.log(
      `embedded-crash: ${summary.join('; ')}; ${acknowledged} replies, of which ${users.length} ` +
        `registrations and ` +
        `${follows.length} follows; after ${CRASHES} kill -9: ${missingUsers.length} users and ` +
        `${missingFollows.length} follows missing`,
    );
    expect(missingUsers).toEqual([]);
    expect(missingFollows).toEqual([]);
    expect(users.length).toBeGreaterThan(CRASHES * 5);
    expect(follows.length).toBeGreaterThan(CRASHES * 3);
  }, 120_000);
});

/** Waits until the load has had `count` writes acknowledged (or 15 s). */
async function waitForWrites(load: MixedLoad, count: number): Promise<void> {
  const initial = load.users.length + load.follows.length;
  const deadline = performance.now() + 15_000;
  while (load.users.length + load.follows.length - initial < count) {
    if (performance.now() > deadline) {
      return;
    }
    await sleep(50);
  }
}
