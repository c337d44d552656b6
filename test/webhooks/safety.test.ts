import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/app-config';
import { ConfigError } from '../../src/config';
import { SecretBox, SecretUnreadableError } from '../../src/platform/auth/secret-box';
import { isNonPublicAddress } from '../../src/platform/http/address-guard';
import { postOutbound } from '../../src/platform/http/outbound';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { attemptsOf, createEndpoint, eventually, Receiver } from './receiver';

/*
 * What keeps webhooks safe (issue 28): no private, loopback or link-local target without
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS (an address given outright is refused when the endpoint is made,
 * a name is checked on the address it resolves to when sent, and the connection goes to that
 * address); https in production; an answer read to 64 KB at most; a time limit; secrets sealed
 * with AES-256-GCM; configuration refused with a message naming the variable.
 */

const CREATE = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;
const UPDATE_MEETING = `mutation ($input: UpdateMeetingInput!) { updateMeeting(input: $input) { meeting { id } } }`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('webhook targets without WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '0.1' });
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(() => t?.close());

  it('refuses an endpoint at a private, loopback or link-local address', async () => {
    for (const url of [
      'http://127.0.0.1:8000/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8000/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::7f00:1]/hook',
      'http://[fec0::1]/hook',
      'http://2130706433/hook',
    ]) {
      const refused = await t.gql.error(
        CREATE,
        { input: { url, eventTypes: ['meeting.updated'] } },
        owner.token,
      );
      expect({ url, extensions: refused.extensions }).toEqual({
        url,
        extensions: expect.objectContaining({
          code: 'BAD_USER_INPUT',
          fields: { url: 'PRIVATE_ADDRESS' },
        }),
      });
    }
  });

  it('says which setting allows a private address when it refuses one', async () => {
    const refused = await t.gql.error(
      CREATE,
      { input: { url: 'http://127.0.0.1:9000/hook', eventTypes: ['meeting.updated'] } },
      owner.token,
    );
    expect(refused.extensions).toMatchObject({ fields: { url: 'PRIVATE_ADDRESS' } });
    expect(refused.message).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
  });

  it('checks a name on the address it resolves to when sending: localhost gets nothing', async () => {
    const hook = await Receiver.start();
    try {
      const port = new URL(hook.url).port;
      const { endpoint } = await createEndpoint(t, owner, `http://localhost:${port}/hooks`, [
        'meeting.updated',
      ]);
      const meeting = await t.seed.meeting(owner).inviting(guest).create();
      await t.gql.data(
        UPDATE_MEETING,
        { input: { meetingId: meeting.id, title: 'Kept inside' } },
        owner.token,
      );
      const attempts = await eventually(
        () => attemptsOf(t, owner, endpoint.id),
        (list) => list.length === 2,
      );
      expect(attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
        [2, null, 'address not allowed (private, loopback or link-local)'],
        [1, null, 'address not allowed (private, loopback or link-local)'],
      ]);
      expect(attempts[0]?.delivery.status).toBe('FAILED');
      expect(hook.received).toEqual([]);
    } finally {
      await hook.close();
    }
  });
});

describe('webhook targets in production', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      NODE_ENV: 'production',
      JWT_SECRET: 'a production secret of enough length',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  afterAll(() => t?.close());

  it('must be https', async () => {
    const [user] = (await t.seed.users(1)) as [SeededUser];
    const refused = await t.gql.error(
      CREATE,
      { input: { url: 'http://127.0.0.1:9/hook', eventTypes: ['meeting.updated'] } },
      user.token,
    );
    expect(refused.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { url: 'HTTPS_REQUIRED' },
    });
    await t.gql.data(
      CREATE,
      { input: { url: 'https://127.0.0.1:9/hook', eventTypes: ['meeting.updated'] } },
      user.token,
    );
  });
});

describe('outbound requests', () => {
  const post = (url: string, overrides: Partial<Parameters<typeof postOutbound>[0]> = {}) =>
    postOutbound({
      url,
      body: '{}',
      headers: { 'content-type': 'application/json' },
      timeoutMs: 2_000,
      maxResponseBytes: 64 * 1024,
      allowPrivate: true,
      requireHttps: false,
      ...overrides,
    });

  it('answers an attempt aborted before it began as aborted, and the process hears its request end', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    const url = await listen(server);
    const errors: unknown[] = [];
    const heard = (error: unknown) => errors.push(error);
    process.on('uncaughtException', heard);
    try {
      // A job pool stopping aborts its jobs: an attempt may start with its signal aborted.
      const stopped = new AbortController();
      stopped.abort();
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, () => post(`${url}/late`, { signal: stopped.signal })),
      );
      expect(outcomes.map((outcome) => outcome.aborted)).toEqual([true, true, true, true, true]);
      // The destroyed requests' 'socket hang up' comes a tick later: heard, not thrown.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors).toEqual([]);
    } finally {
      process.off('uncaughtException', heard);
      server.close();
    }
  });

  it('read at most 64 KB of an answer, however much the target sends', async () => {
    let written = 0;
    let closedEarly = false;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = (): void => {
        while (written < 64 * 1024 * 1024 && response.write(chunk)) {
          written += chunk.length;
        }
      };
      response.on('drain', more);
      response.on('close', () => {
        closedEarly = !response.writableEnded;
      });
      more();
    });
    const url = await listen(server);
    try {
      const outcome = await post(`${url}/endless`);
      expect(outcome).toMatchObject({ status: 200, error: null, aborted: false });
      await eventually(
        () => Promise.resolve(closedEarly),
        (closed) => closed,
        5_000,
      );
      expect(closedEarly).toBe(true);
      expect(written).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await stop(server);
    }
  });

  it('give up at their time limit, and say why a connection failed', async () => {
    const silent = createServer(() => undefined);
    const url = await listen(silent);
    try {
      expect(await post(`${url}/silent`, { timeoutMs: 200 })).toMatchObject({
        status: null,
        error: 'timed out after 200 ms',
      });
    } finally {
      await stop(silent);
    }
    // Nothing listens on port 1 (a privileged port no test binds): not the silent server's port
    // again, which another test file running beside this one may take as soon as it is free.
    expect(await post('http://127.0.0.1:1/gone')).toMatchObject({
      status: null,
      error: 'connection refused',
    });
    expect(await post(`${url}/private`, { allowPrivate: false })).toMatchObject({
      status: null,
      error: 'address not allowed (private, loopback or link-local)',
    });
  });

  it('tell public addresses from the others', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      'ff02::1',
      // IPv4-compatible (deprecated) and site-local (deprecated) forms.
      '::7f00:1',
      '::127.0.0.1',
      'fec0::1',
      // Every range of IANA's special-purpose registries, one address each.
      '192.0.0.8', // IETF protocol assignments
      '192.0.2.1', // documentation
      '192.31.196.1', // AS112
      '192.52.193.1', // AMT
      '192.88.99.1', // 6to4 relay anycast (deprecated)
      '192.175.48.1', // AS112 direct delegation
      '198.18.0.1', // benchmarking
      '198.51.100.1', // documentation
      '203.0.113.1', // documentation
      '224.0.0.1', // multicast
      '240.0.0.1', // reserved
      '255.255.255.255', // limited broadcast
      '64:ff9b::a00:1', // NAT64
      '64:ff9b:1::1', // local-use NAT64
      '100::1', // discard
      '2001::1', // Teredo
      '2001:2::1', // benchmarking
      '2001:3::1', // AMT
      '2001:4:112::1', // AS112
      '2001:20::1', // ORCHIDv2
      '2001:db8::1', // documentation
      '2002::1', // 6to4
      '2620:4f:8000::1', // AS112 direct delegation
      '3fff::1', // documentation
      '5f00::1', // segment routing
      'fc00::1', // unique local
      '4000::1', // not allocated (outside 2000::/3)
      'not an address',
    ]) {
      expect({ address, private: isNonPublicAddress(address) }).toEqual({ address, private: true });
    }
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::1',
    ]) {
      expect({ address, private: isNonPublicAddress(address) }).toEqual({
        address,
        private: false,
      });
    }
  });
});

describe('webhook secrets and configuration', () => {
  it('seal secrets with AES-256-GCM: another key, another row or a changed byte does not open them', () => {
    const box = SecretBox.of({
      key: null,
      privateKeyPem: null,
      secret: 'one signing secret, long enough',
    });
    const sealed = box.seal('whsec_c2VjcmV0', 'endpoint-1');
    expect(sealed).toMatch(/^v1\.[\w-]+$/);
    expect(sealed).not.toContain('c2VjcmV0');
    expect(box.open(sealed, 'endpoint-1')).toBe('whsec_c2VjcmV0');
    expect(() => box.open(sealed, 'endpoint-2')).toThrow(SecretUnreadableError);
    const other = SecretBox.of({
      key: null,
      privateKeyPem: null,
      secret: 'another signing secret, long',
    });
    expect(() => other.open(sealed, 'endpoint-1')).toThrow(SecretUnreadableError);
    // The character before the last, always changed (a sealed text may have an 'A' there).
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(() => box.open(flipped, 'endpoint-1')).toThrow(SecretUnreadableError);
    const keyed = SecretBox.of({
      key: Buffer.alloc(32, 7).toString('base64'),
      privateKeyPem: null,
      secret: 'x',
    });
    expect(keyed.open(keyed.seal('s', 'c'), 'c')).toBe('s');
  });

  it('refuses bad webhook settings at start, naming the variable', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return error instanceof ConfigError ? error.problems : ['not a ConfigError'];
      }
    };
    expect(problems({ WEBHOOK_RETRY_SCHEDULE: 'soon' })).toEqual([
      'WEBHOOK_RETRY_SCHEDULE: must be seconds separated by commas, e.g. 5,300,1800',
    ]);
    expect(problems({ WEBHOOK_RETRY_SCHEDULE: '5,999999999' })).toEqual([
      'WEBHOOK_RETRY_SCHEDULE: each wait at most 604800 seconds (a week)',
    ]);
    expect(problems({ WEBHOOK_SECRET_KEY: 'too-short' })).toEqual([
      'WEBHOOK_SECRET_KEY: must be 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`',
    ]);
    expect(problems({ WEBHOOK_DISABLE_AFTER: '0' })).toHaveLength(1);
    expect(problems({ WEBHOOK_DISABLE_AFTER_HOURS: '0' })).toHaveLength(1);
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER_HOURS: '6' }).webhooks.disableAfterHours).toBe(6);
    expect(problems({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toHaveLength(1);
    for (const lanes of ['0', '17', '2.5', 'many']) {
      expect(problems({ WEBHOOK_CONCURRENCY_PER_ENDPOINT: lanes })).toEqual([
        expect.stringMatching(/^WEBHOOK_CONCURRENCY_PER_ENDPOINT: /),
      ]);
    }
    expect(
      loadConfig({ WEBHOOK_CONCURRENCY_PER_ENDPOINT: '16' }).webhooks.concurrencyPerEndpoint,
    ).toBe(16);
    for (const backlog of ['0', '1000001', '-5']) {
      expect(problems({ WEBHOOK_MAX_BACKLOG: backlog })).toEqual([
        expect.stringMatching(/^WEBHOOK_MAX_BACKLOG: /),
      ]);
    }
    expect(loadConfig({ WEBHOOK_MAX_BACKLOG: '50' }).webhooks.maxBacklog).toBe(50);
    expect(loadConfig({}).webhooks).toEqual({
      retrySchedule: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
      disableAfter: 20,
      disableAfterHours: 72,
      concurrencyPerEndpoint: 4,
      maxBacklog: 10_000,
      allowPrivateNetworks: false,
      secretKey: null,
    });
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5, 2,10' }).webhooks.retrySchedule).toEqual([
      0.5, 2, 10,
    ]);
  });
});
