import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { loadSigningKey } from '../../src/platform/auth/keys';
import { loadConfig } from '../../src/app-config';
import { burstOfChanges } from '../helpers/change-burst';
import { type LiveClient, useLiveClients, waitForSubscriptions } from '../helpers/live-client';
import type { SeededUser } from '../helpers/seed';
import { startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app';

/*
 * The bounds of the WebSocket face: subscriptions per socket, sockets per user, a subscriber that
 * does not keep up, a token that expires under an open socket, and a graceful shutdown.
 */

const INVITATIONS = 'subscription { invitationReceived { id } }';
const MEETING_EVENTS = `subscription ($meetingId: UUID!) {
  meetingEvents(meetingId: $meetingId) { kind }
}`;

describe('the bounds of subscriptions', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  const connect = useLiveClients();
  const open = (token?: string, on: TestApp = t): LiveClient => connect(on.url, token);

  beforeAll(async () => {
    t = await startTestApp({
      SUBSCRIPTIONS_PER_SOCKET: '2',
      SOCKETS_PER_USER: '2',
      SUBSCRIPTION_QUEUE_SIZE: '3',
    });
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });
  afterAll(() => t.close());

  it('refuses a subscription beyond SUBSCRIPTIONS_PER_SOCKET on one socket', async () => {
    const socket = open(guest.token);
    const first = socket.subscribe(INVITATIONS);
    const second = socket.subscribe(INVITATIONS);
    await waitForSubscriptions(t.instance, 2);
    const third = socket.subscribe(INVITATIONS);
    await third.finished();
    expect(third.ended?.error).toEqual([
      expect.objectContaining({
        extensions: { code: 'TOO_MANY_REQUESTS', reason: 'TOO_MANY_SUBSCRIPTIONS', limit: 2 },
      }),
    ]);
    expect([first.ended, second.ended]).toEqual([null, null]);
  });

  it('refuses a subscription whose every event could answer more than 100,000 records', async () => {
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    const fanOut = Array.from(
      { length: 11 },
      (_, i) => `p${i}: participantsConnection(first: 100) { nodes { id } }`,
    ).join(' ');
    const query = `subscription ($meetingId: UUID!) {
      meetingEvents(meetingId: $meetingId) {
        meeting { participantsConnection(first: 100) { nodes { meeting { ${fanOut} } } } }
      }
    }`;
    const refused = open(guest.token).subscribe(query, { meetingId: meeting.id });
    await refused.finished();
    expect(refused.ended?.error).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'QUERY_TOO_LARGE', nodes: 110_000 + 100 }),
      }),
    ]);
  });

  it('refuses a socket beyond SOCKETS_PER_USER for one user (4429), and frees the place on close', async () => {
    const sockets = [open(guest.token), open(guest.token)];
    expect(await Promise.all(sockets.map((socket) => socket.acknowledged))).toEqual([true, true]);
    const extra = open(guest.token);
    expect(await extra.acknowledged).toBe(false);
    expect(await extra.closed).toEqual({ code: 4429, reason: 'Too many sockets' });
    // Another user is not affected.
    expect(await open(owner.token).acknowledged).toBe(true);
    await sockets[0]?.close();
    await sockets[0]?.closed;
    const deadline = Date.now() + 2_000;
    let again = open(guest.token);
    while (!(await again.acknowledged) && Date.now() < deadline) {
      again = open(guest.token);
    }
    expect(await again.acknowledged).toBe(true);
  });

  it('closes the socket of a subscriber whose queue overflows (1013)', async () => {
    const meeting = await t.seed.meeting(owner).inviting(guest).create();
    const socket = open(guest.token);
    socket.subscribe(MEETING_EVENTS, { meetingId: meeting.id });
    await waitForSubscriptions(t.instance, 1);
    // A burst far larger than the queue, all at once (as a busy meeting could produce): 200
    // changes logged by one transaction, read by the feed in one batch.
    await burstOfChanges(t, meeting.id, 200);
    expect(await socket.closed).toEqual({ code: 1013, reason: 'Slow consumer' });
  });

  it('closes the socket when its token expires (4403)', async () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    const key = await loadSigningKey(config.auth);
    const { issuer, audience } = t.instance.deps.tokens.settings;
    const shortLived = await new SignJWT({})
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(guest.id)
      .setAudience(audience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
      .sign(key.privateKey);
    const socket = open(shortLived);
    expect(await socket.acknowledged).toBe(true);
    const opened = Date.now();
    expect(await socket.closed).toEqual({ code: 4403, reason: 'Token expired' });
    expect(Date.now() - opened).toBeLessThan(3_500);
  });

  it('closes open sockets with 1001 when the service shuts down', async () => {
    const other = await startSecondInstance(t, 2);
    const socket = open(guest.token, other);
    const events = socket.subscribe(INVITATIONS);
    await waitForSubscriptions(other.instance, 1);
    await other.close();
    expect(await socket.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(events.ended).not.toBeNull();
  });
});
