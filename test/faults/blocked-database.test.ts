import { Client } from 'pg';
import { capturedLogger } from '../observability/log-capture';
import { startTestApp, type TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';
import { testDatabaseKind } from '../helpers/test-database';

/**
 * A database that answers nothing (a lock held on `users`, so every statement on it waits):
 * the pool fills with waiting statements, new requests wait for a connection, and every one of
 * them is answered 503 by the statement or acquire timeout, within the request timeout.
 */
const REQUEST_TIMEOUT_MS = 3000;
const CLIENTS = 20;

const suite = testDatabaseKind === 'postgres' ? describe : describe.skip;

suite('a blocked database', () => {
  let t: TestApp;
  let ada: SeededUser;
  const logs = capturedLogger();

  beforeAll(async () => {
    t = await startTestApp(
      { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
      { logger: logs.logger },
    );
    ada = await t.seed.user();
  });
  afterAll(() => t.close());

  it('answers 503 within the request timeout, with the request id in GraphQL errors', async () => {
    const locker = new Client({
      connectionString: t.instance.database.url,
    });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table users in access exclusive mode');
    const timed = async (send: () => Promise<Response>) => {
      const started = performance.now();
      const response = await send();
      return {
        response,
        body: (await response.json()) as unknown,
        ms: performance.now() - started,
      };
    };
    let answers;
    try {
      answers = await Promise.all(
        Array.from({ length: CLIENTS }, (_, k) =>
          timed(() =>
            k % 2 === 0
              ? fetch(`${t.url}/api/v1/user/me`, {
                  headers: { authorization: `Bearer ${ada.token}`, 'x-request-id': `blocked-${k}` },
                })
              : fetch(`${t.url}/graphql`, {
                  method: 'POST',
                  headers: {
                    'content-type': 'application/json',
                    authorization: `Bearer ${ada.token}`,
                    'x-request-id': `blocked-${k}`,
                  },
                  body: JSON.stringify({ query: 'query Blocked { me { id } }' }),
                }),
          ),
        ),
      );
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    for (const [k, { response, body, ms }] of answers.entries()) {
      expect({ k, status: response.status }).toEqual({ k, status: 503 });
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS);
      if (k % 2 === 0) {
        expect(body).toEqual({ errors: 'SERVICE_UNAVAILABLE' });
      } else {
        expect(body).toEqual({
          errors: [
            expect.objectContaining({
              extensions: {
                code: 'SERVICE_UNAVAILABLE',
                reason: 'SERVICE_UNAVAILABLE',
                requestId: `blocked-${k}`,
              },
            }),
          ],
        });
      }
    }
    // The warnings logged while a request was served carry its id.
    const warnings = logs.lines.filter((line) => line['msg'] === 'database unavailable');
    expect(warnings.length).toBeGreaterThanOrEqual(CLIENTS);
    for (const warning of warnings) {
      expect(warning['reqId']).toMatch(/^blocked-\d+$/);
    }
    // And once the lock is gone, the same requests succeed.
    const after = await fetch(`${t.url}/api/v1/user/me`, {
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(after.status).toBe(200);
  }, 30_000);
});
