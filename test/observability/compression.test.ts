import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/test-app';
import type { SeededUser } from '../helpers/seed';

interface RawAnswer {
  status: number;
  encoding: string | undefined;
  /** The body as sent on the wire. */
  wire: Buffer;
}

/** A GET with exactly these headers (fetch would add and undo Accept-Encoding by itself). */
function get(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers['content-encoding'],
          wire: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('response compression', () => {
  let t: TestApp;
  let ada: SeededUser;
  let meetingUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    ada = await t.seed.user();
    const guests = await t.seed.users(12);
    const meeting = await t.seed
      .meeting(ada)
      .inviting(...guests)
      .create();
    meetingUrl = `${t.url}/api/v1/meeting/${meeting.id}`;
  });
  afterAll(() => t.close());

  const auth = () => ({ authorization: `Bearer ${ada.token}` });

  it('compresses a large JSON body with gzip or br when the client accepts it, same bytes inside', async () => {
    const plain = await get(meetingUrl, auth());
    expect(plain.status).toBe(200);
    expect(plain.encoding).toBeUndefined();
    expect(plain.wire.length).toBeGreaterThan(4096);

    const gzip = await get(meetingUrl, { ...auth(), 'accept-encoding': 'gzip' });
    expect(gzip.encoding).toBe('gzip');
    expect(gzip.wire.length).toBeLessThan(plain.wire.length / 3);
    expect(gunzipSync(gzip.wire).equals(plain.wire)).toBe(true);

    const br = await get(meetingUrl, { ...auth(), 'accept-encoding': 'br' });
    expect(br.encoding).toBe('br');
    expect(brotliDecompressSync(br.wire).equals(plain.wire)).toBe(true);
  });

  it('leaves bodies below the threshold as they are', async () => {
    const me = await get(`${t.url}/api/v1/user/me`, { ...auth(), 'accept-encoding': 'gzip, br' });
    expect(me.status).toBe(200);
    expect(me.wire.length).toBeLessThan(4096);
    expect(me.encoding).toBeUndefined();
    expect(JSON.parse(me.wire.toString('utf8'))).toMatchObject({ id: ada.id });
  });

  it('can be switched off', async () => {
    const off = await startTestApp({ COMPRESSION: 'false' });
    try {
      const user = await off.seed.user();
      const spec = await get(`${off.url}/api/v1/openapi.json`, {
        authorization: `Bearer ${user.token}`,
        'accept-encoding': 'gzip, br',
      });
      expect(spec.status).toBe(200);
      expect(spec.wire.length).toBeGreaterThan(4096);
      expect(spec.encoding).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});
