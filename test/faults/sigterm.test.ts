import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { testDatabaseKind } from '../helpers/test-database';
import { useEmbeddedFixture } from './support/embedded-fixture';
import { call, callOnNewConnection, newUser, PASSWORD, registerAndLogin } from './support/load';
import { type ServiceProcess, unreadByClientPort } from './support/service';

/**
 * SIGTERM while requests are in flight: every request already accepted completes with its normal
 * status, new connections are refused (or answered 503), the process exits 0 within the shutdown
 * timeout, and what it acknowledged is there after a restart on the same data directory.
 *
 * The service runs as a child process (the compiled sources, `node src/main.js`) on the embedded
 * database in a temporary DATA_DIR. Runs once, in the embedded jest project.
 */

const IN_FLIGHT = 24;
const SHUTDOWN_TIMEOUT_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const suite = testDatabaseKind === 'embedded' ? describe : describe.skip;

suite('SIGTERM under load', () => {
  const fixture = useEmbeddedFixture('sigterm');
  const start = (): Promise<ServiceProcess> =>
    fixture.start({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });

  it('finishes what it accepted, refuses new connections, exits 0, keeps the data', async () => {
    const service = await start();
    const tag = `s${randomBytes(3).toString('hex')}`;
    // A user to look the others up with after the restart (and a warm-up of the whole path).
    const viewer = await registerAndLogin(service.url, `${tag}v`);

    // Registrations are slow (argon2id at its production cost): good requests to catch in flight.
    // Each on a connection of its own, so which ones the service had accepted is unambiguous.
    const clientPorts: number[] = [];
    let signalledAt = Infinity;
    const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) => {
      const fields = newUser(`${tag}u${i}`);
      return callOnNewConnection(service.url, 'POST', '/api/v1/auth/register', {
        json: { ...fields, password: PASSWORD, password_confirm: PASSWORD },
        timeoutMs: SHUTDOWN_TIMEOUT_MS + 5_000,
        onSent: (port) => {
          clientPorts[i] = port;
        },
      }).then((result) => ({
        ...result,
        fields,
        answeredAfterSignal: performance.now() > signalledAt,
      }));
    });
    // SIGTERM once the service has read about half of them: those are in its hands and must
    // complete normally; the rest may still sit in the kernel's accept queue, and a connection
    // the service never accepted is reset when the listener closes (plain Node behaviour) — then
    // it must not have been processed either.
    let inHands: Set<number> | null = null;
    const deadline = performance.now() + 20_000;
    while (performance.now() < deadline) {
      const unread = unreadByClientPort(service.url);
      const sent = clientPorts.filter((port) => port !== undefined);
      if (!unread) {
        break;
      }
      const read = sent.filter((port) => unread.get(port) === 0 || !unread.has(port));
      if (sent.length === IN_FLIGHT && read.length >= IN_FLIGHT / 2) {
        inHands = new Set(read);
        break;
      }
      await sleep(2);
    }
    signalledAt = performance.now();
    service.signal('SIGTERM');

    // After the signal: a new connection is refused, or answered 503 — never served as usual.
    await sleep(150);
    const late = await Promise.all([
      callOnNewConnection(service.url, 'GET', '/health/readiness', { timeoutMs: 5_000 }),
      callOnNewConnection(service.url, 'POST', '/api/v1/auth/register', {
        json: { ...newUser(`${tag}late`), password: PASSWORD, password_confirm: PASSWORD },
        timeoutMs: 5_000,
      }),
    ]);

    const results = await Promise.all(inFlight);
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      service.exited,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), SHUTDOWN_TIMEOUT_MS + 5_000);
      }),
    ]);
    clearTimeout(timer);
    const exitedAfterMs = performance.now() - signalledAt;
    const accepted = (i: number) => inHands?.has(clientPorts[i] as number) ?? false;
    const acceptedInFlight = results.filter((r, i) => accepted(i) && r.answeredAfterSignal).length;
    console.log(
      `sigterm: ${IN_FLIGHT} registrations sent, ${inHands?.size ?? '?'} in the service's hands at ` +
        `the signal (${acceptedInFlight} of them still unanswered); statuses ` +
        `${JSON.stringify(results.map((r) => r.status ?? r.error))}; new connections after the ` +
        `signal: ${JSON.stringify(late.map((r) => r.status ?? r.error))}; exit ` +
        `${JSON.stringify(exit)} after ${Math.round(exitedAfterMs)} ms`,
    );

    if (existsSync('/proc/net/tcp')) {
      expect(inHands).not.toBeNull();
      // The signal really came while accepted requests were being served.
      expect(acceptedInFlight).toBeGreaterThan(0);
    }
    // Every request the service had accepted completes normally; one it had not is answered
    // normally too, or refused at the connection (checked below: then not processed).
    const unexpected = results
      .map((result, i) => ({ i, outcome: result.status ?? result.error, accepted: accepted(i) }))
      .filter(
        ({ outcome, accepted: wasAccepted }) =>
          outcome !== 201 && (wasAccepted || !/ECONNRESET|EPIPE/.test(String(outcome))),
      );
    expect(unexpected).toEqual([]);
    for (const result of late) {
      if (result.status === null) {
        expect(result.error).toMatch(/ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/);
      } else {
        expect(result.status).toBe(503);
        expect(result.body).toEqual({ errors: 'SERVICE_UNAVAILABLE' });
      }
    }
    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitedAfterMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(service.logs.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);

    // Everything acknowledged is there after a restart on the same data directory.
    const restarted = await start();
    const ready = await call(restarted.url, 'GET', '/health/readiness');
    expect(ready.status).toBe(204);
    const login = await call(restarted.url, 'POST', '/api/v1/auth/login', {
      json: { email: viewer.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const token = (login.body as { access_token: string }).access_token;
    for (const result of results) {
      const found = await call(restarted.url, 'GET', `/api/v1/user/${result.fields.account}`, {
        token,
      });
      if (result.status === 201) {
        expect([result.fields.account, found.status]).toEqual([result.fields.account, 200]);
        expect((found.body as { id: string }).id).toBe((result.body as { id: string }).id);
      } else {
        // Never answered: then never done either (no write behind the client's back).
        expect([result.fields.account, found.status]).toEqual([result.fields.account, 404]);
      }
    }
  }, 90_000);
});
