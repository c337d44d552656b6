import type { SeededUser } from '../helpers/seed';
import type { RestResponse } from '../helpers/rest-client';
import { useTestApp } from '../helpers/use-test-app';
import {
  createMeetingViaRest,
  expectAnswer,
  meetingBody,
  registration,
  UNKNOWN_ID,
} from './rest-fixtures';

const notFound = { errors: 'NOT_FOUND' };
const malformed = { errors: 'MALFORMED_BODY' };
const tooLarge = { errors: 'PAYLOAD_TOO_LARGE' };
const unsupported = { errors: 'UNSUPPORTED_MEDIA_TYPE' };

/** More than the 1 MiB the service reads. */
const OVERSIZED = 'x'.repeat(1024 * 1024 + 1);

/** A failure caused by the client: a 4xx with the contract's error body, never a 5xx. */
function expectClientError(response: RestResponse, label: string): void {
  expect({
    label,
    status: response.status,
    clientError: response.status >= 400 && response.status < 500,
    body: response.body,
  }).toEqual({
    label,
    status: response.status,
    clientError: true,
    body: { errors: expect.anything() },
  });
}

/** Input the service may accept or refuse, but never with a 5xx. */
function expectClientErrorOrSuccess(response: RestResponse, label: string): void {
  expect({ label, status: response.status, below500: response.status < 500 }).toEqual({
    label,
    status: response.status,
    below500: true,
  });
}

describe('HTTP-level errors of the REST facade', () => {
  const t = useTestApp();
  const { rest } = t;
  let alice: SeededUser;
  let bob: SeededUser;

  beforeAll(async () => {
    [alice, bob] = (await t.seed.users(2)) as [SeededUser, SeededUser];
  });

  describe('unknown routes', () => {
    it('answers 404 NOT_FOUND for a path that is no route, with or without a token', async () => {
      for (const path of ['/nowhere', '/meeting', '/user', `/meeting/${UNKNOWN_ID}/unknown`]) {
        expectAnswer(await rest.get(path), 404, notFound);
        expectAnswer(await rest.get(path, { token: alice.token }), 404, notFound);
        expectAnswer(await rest.post(path, { json: {} }, { token: alice.token }), 404, notFound);
      }
    });

    it('answers 404 NOT_FOUND for a known path with a method it does not serve', async () => {
      expectAnswer(await rest.get('/auth/register'), 404, notFound);
      expectAnswer(await rest.post('/user/me', undefined, { token: alice.token }), 404, notFound);
    });

    it('answers 404 NOT_FOUND outside the /api/v1 prefix', async () => {
      const response = await fetch(`${t.url}/api/v2/user/me`);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 404,
        body: notFound,
      });
    });
  });

  describe('400 MALFORMED_BODY', () => {
    it('answers broken JSON, and JSON that is not an object, with 400 MALFORMED_BODY', async () => {
      for (const raw of ['{"name": ', '["name"]', '"name"', 'null', '42', '{"a":1}{']) {
        const response = await rest.post('/auth/register', {
          raw,
          contentType: 'application/json',
        });
        expect({ raw, status: response.status, body: response.body }).toEqual({
          raw,
          status: 400,
          body: malformed,
        });
      }
    });

    it('answers a broken multipart body with 400 MALFORMED_BODY', async () => {
      const response = await rest.post('/auth/register', {
        raw: '--abc\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda',
        contentType: 'multipart/form-data; boundary=abc',
      });
      expectAnswer(response, 400, malformed);
      const noBoundary = await rest.post('/auth/register', {
        raw: 'name=Ada',
        contentType: 'multipart/form-data',
      });
      expectAnswer(noBoundary, 400, malformed);
    });

    it('answers broken JSON on the JSON routes with 400 MALFORMED_BODY', async () => {
      const broken = { raw: '{"user_id": ', contentType: 'application/json' };
      expectAnswer(await rest.post('/auth/login', broken), 400, malformed);
      expectAnswer(
        await rest.post('/meeting/create', broken, { token: alice.token }),
        400,
        malformed,
      );
    });
  });

  describe('413 PAYLOAD_TOO_LARGE', () => {
    it('answers a JSON, form or multipart body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
      const json = await rest.post('/auth/register', {
        json: { ...registration(), name: OVERSIZED },
      });
      expectAnswer(json, 413, tooLarge);
      const form = await rest.post('/auth/register', {
        form: { ...registration(), name: OVERSIZED } as unknown as Record<string, string>,
      });
      expectAnswer(form, 413, tooLarge);
      const multipart = await rest.post('/auth/register', {
        multipart: { ...registration(), name: OVERSIZED } as unknown as Record<string, string>,
      });
      expectAnswer(multipart, 413, tooLarge);
      const meeting = await rest.post(
        '/meeting/create',
        { json: { ...meetingBody([bob.id]), padding: OVERSIZED } },
        { token: alice.token },
      );
      expectAnswer(meeting, 413, tooLarge);
    });
  });

  describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
    it('refuses a body of a type the route does not read', async () => {
      for (const contentType of ['text/plain', 'application/xml', 'application/octet-stream']) {
        const response = await rest.post('/auth/register', {
          raw: 'name=Ada',
          contentType,
        });
        expect({ contentType, status: response.status, body: response.body }).toEqual({
          contentType,
          status: 415,
          body: unsupported,
        });
      }
    });

    it('refuses a body without a content type', async () => {
      const response = await rest.post('/auth/register', { raw: JSON.stringify(registration()) });
      expectAnswer(response, 415, unsupported);
    });
  });

  describe('bad input never yields a 5xx', () => {
    it('answers values of the wrong JSON type with 422', async () => {
      const meeting = await createMeetingViaRest(rest, alice.token, [bob.id]);
      const cases: Array<[string, string, unknown]> = [
        ['/auth/register', 'name', { ...registration(), name: { first: 'Ada' } }],
        ['/auth/register', 'email', { ...registration(), email: ['a@example.com'] }],
        ['/auth/register', 'password', { ...registration(), password: null }],
        ['/meeting/create', 'meeting', { meeting: 'soon', participants: [{ user_id: bob.id }] }],
        ['/meeting/create', 'participants', { ...meetingBody([]), participants: 'everyone' }],
        ['/meeting/create', 'meeting.title', meetingBody([bob.id], { title: 123456 })],
        [`/meeting/${meeting.id}/participants/add`, 'user_id', { user_id: { id: bob.id } }],
      ];
      for (const [path, field, body] of cases) {
        const response = await rest.post(path, { json: body }, { token: alice.token });
        expect({ path, field, status: response.status, fields: response.body }).toEqual({
          path,
          field,
          status: 422,
          fields: { errors: expect.objectContaining({ [field]: expect.any(String) }) },
        });
      }
    });

    it('answers a repeated multipart field with 422, not a 5xx', async () => {
      const form = new FormData();
      for (const [name, value] of Object.entries(registration())) {
        form.append(name, value);
      }
      form.append('name', 'Another Name Here');
      const response = await rest.post('/auth/register', { multipart: form });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        errors: { name: expect.stringMatching(/^VALIDATION_NAME_[A-Z_]+$/) },
      });
    });

    it('answers a path parameter that is not valid percent-encoding without a 5xx', async () => {
      const response = await rest.get('/meeting/%E0%A4%A', { token: alice.token });
      expectClientError(response, 'GET /meeting/%E0%A4%A');
      const user = await rest.get('/user/%ZZ', { token: alice.token });
      expectClientError(user, 'GET /user/%ZZ');
    });

    it('answers a name of four emoji (eight UTF-16 units, four characters) with 422, not a 5xx', async () => {
      const response = await rest.post('/auth/register', {
        json: registration({ name: '😀😀😀😀' }),
      });
      expectAnswer(response, 422, { errors: { name: 'VALIDATION_NAME_TOO_SHORT' } });
    });

    it('answers a meeting title of three emoji (six UTF-16 units, three characters) with 422, not a 5xx', async () => {
      const response = await rest.post(
        '/meeting/create',
        { json: meetingBody([bob.id], { title: '📅📅📅' }) },
        { token: alice.token },
      );
      expectAnswer(response, 422, { errors: { 'meeting.title': 'VALIDATION_MEETING_TOO_SHORT' } });
    });

    it('accepts a name of forty accented characters', async () => {
      const name = 'Zoë Ünal '.repeat(5).slice(0, 40);
      const response = await rest.post('/auth/register', { json: registration({ name }) });
      expect({ status: response.status, name: (response.body as { name?: string }).name }).toEqual({
        status: 201,
        name: name.trim(),
      });
    });

    it('answers a NUL character in a registration field without a 5xx', async () => {
      const response = await rest.post('/auth/register', {
        json: registration({ name: 'Null\u0000Character' }),
      });
      expectClientErrorOrSuccess(response, 'POST /auth/register name with NUL');
    });

    it('answers a NUL character in the search text without a 5xx', async () => {
      const response = await rest.get('/user/search', {
        token: alice.token,
        query: { q: 'ab\u0000cd' },
      });
      expectClientErrorOrSuccess(response, 'GET /user/search q with NUL');
    });

    it('never carries a stack trace, SQL or driver message in an error body', async () => {
      const responses = await Promise.all([
        rest.get('/meeting/%E0%A4%A', { token: alice.token }),
        rest.post('/auth/register', { json: registration({ name: '😀😀😀😀' }) }),
        rest.post('/auth/register', { raw: '{"a":', contentType: 'application/json' }),
      ]);
      for (const response of responses) {
        expect(response.text).not.toMatch(
          /at .+\.(ts|js):\d+|select |insert |violat|node_modules/i,
        );
      }
    });
  });
});
