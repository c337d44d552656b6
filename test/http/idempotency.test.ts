import { Client } from 'pg';
import type { SeededUser } from '../helpers/seed';
import type { RestResponse } from '../helpers/rest-client';
import { useTestApp } from '../helpers/use-test-app';
import { meetingBody } from '../rest/rest-fixtures';

/**
 * Idempotency-Key (docs/rest-contract.md §8) on REST POSTs and GraphQL mutations, over real HTTP on
 * a real database: a retry answers the first answer again and writes nothing; a committed write
 * whose answer was lost (its COMMIT acknowledged by the server, the connection gone before the
 * service heard it) is answered with its real success on retry.
 */

const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) {
    meeting { id title status participants { user { id } status } }
  }
}`;

const REPLAYED = 'idempotent-replayed';

let keys = 0;
/** A fresh key per use, so tests never meet each other's. */
const newKey = (): string => `key-${Date.now().toString(36)}-${(keys += 1)}`;

describe('Idempotency-Key', () => {
  const t = useTestApp();
  const { rest } = t;
  let admin: Client;
  let owner: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  let titles = 0;

  beforeAll(async () => {
    admin = new Client({ connectionString: t.instance.database.url });
    await admin.connect();
    t.beforeClose(() => admin.end());
    [owner, bob, carol] = (await t.seed.users(3)) as [SeededUser, SeededUser, SeededUser];
  });

  /** A meeting body with a title of its own (meetings are counted by title). */
  const aMeeting = (invited: readonly string[] = [bob.id]) =>
    meetingBody([...invited], { title: `Keyed meeting ${(titles += 1)}` });
  const titleOf = (body: Record<string, unknown>): string =>
    (body['meeting'] as { title: string }).title;
  const meetingsTitled = async (title: string): Promise<number> =>
    Number(
      (await admin.query('select count(*) from meetings where title = $1', [title])).rows[0].count,
    );

  const create = (
    by: SeededUser,
    body: unknown,
    key?: string,
  ): Promise<RestResponse<{ id: string; errors?: unknown }>> =>
    rest.post(
      '/meeting/create',
      { json: body },
      { token: by.token, headers: key === undefined ? {} : { 'idempotency-key': key } },
    );

  const graphql = async (
    query: string,
    variables: Record<string, unknown>,
    options: { token?: string; key?: string } = {},
  ) => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.key !== undefined ? { 'idempotency-key': options.key } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  };

  /** Status, content type and body bytes: what a retry must see again. */
  const answerOf = (response: { status: number; headers: Headers; text: string }) => ({
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: response.text,
  });

  it('answers a retry with the first answer, byte for byte, marked replayed, and writes once', async () => {
    const key = newKey();
    const body = aMeeting();
    const first = await create(owner, body, key);
    const retry = await create(owner, body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get(REPLAYED)).toBeNull();
    expect(answerOf(retry)).toEqual(answerOf(first));
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(await meetingsTitled(titleOf(body))).toBe(1);
  });

  it('makes one meeting of eight concurrent sends: every answer is the first, or 409 while it runs', async () => {
    const key = newKey();
    const body = aMeeting([bob.id, carol.id]);
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(owner, body, key)));
    const ran = answers.filter((a) => a.status === 201 && a.headers.get(REPLAYED) === null);
    expect(ran).toHaveLength(1);
    const first = answerOf(ran[0] as RestResponse);
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body).toEqual({ errors: 'IDEMPOTENCY_KEY_IN_USE' });
      } else {
        expect(answerOf(answer)).toEqual(first);
      }
    }
    expect(await meetingsTitled(titleOf(body))).toBe(1);
    // Once the first has finished, every retry is answered with it.
    const later = await create(owner, body, key);
    expect(answerOf(later)).toEqual(first);
    expect(later.headers.get(REPLAYED)).toBe('true');
  });

  it('refuses the key with another request: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const key = newKey();
    const first = await create(owner, aMeeting(), key);
    const other = aMeeting();
    const reused = await create(owner, other, key);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ errors: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await meetingsTitled(titleOf(other))).toBe(0);
    // Another route is another request too.
    const approve = await rest.post(`/meeting/${first.body.id}/approve`, undefined, {
      token: owner.token,
      headers: { 'idempotency-key': key },
    });
    expect(approve.body).toEqual({ errors: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('gives each caller keys of their own: the same key from another user is another request', async () => {
    const key = newKey();
    const mine = aMeeting([bob.id]);
    const theirs = aMeeting([owner.id]);
    expect((await create(owner, mine, key)).status).toBe(201);
    const other = await create(carol, theirs, key);
    expect(other.status).toBe(201);
    expect(other.headers.get(REPLAYED)).toBeNull();
    expect(await meetingsTitled(titleOf(theirs))).toBe(1);
  });

  it('scopes an anonymous caller’s key by key and route (registration, then sign-in)', async () => {
    const key = newKey();
    const account = `keyed${Date.now().toString(36)}`;
    const form = {
      name: 'Keyed Person',
      account,
      email: `${account}@example.com`,
      password: 'correct horse battery',
      password_confirm: 'correct horse battery',
    };
    const headers = { 'idempotency-key': key };
    const first = await rest.post('/auth/register', { form }, { headers });
    const retry = await rest.post('/auth/register', { form }, { headers });
    expect(first.status).toBe(201);
    expect(answerOf(retry)).toEqual(answerOf(first));
    expect(retry.headers.get(REPLAYED)).toBe('true');
    const changed = await rest.post(
      '/auth/register',
      { form: { ...form, name: 'Other' } },
      { headers },
    );
    expect(changed.body).toEqual({ errors: 'IDEMPOTENCY_KEY_REUSED' });
    // The same key on another route is a key of that route.
    const login = await rest.post(
      '/auth/login',
      { json: { email: form.email, password: form.password } },
      { headers },
    );
    expect(login.status).toBe(200);
    expect(login.headers.get(REPLAYED)).toBeNull();
  });

  it('keeps a sign-in’s answer sealed: the row holds no token, and a retry answers it byte for byte', async () => {
    const key = newKey();
    const headers = { 'idempotency-key': key };
    const credentials = { json: { email: owner.email, password: owner.password } };
    const first = await rest.post('/auth/login', credentials, { headers });
    expect(first.status).toBe(200);
    const token = (first.body as unknown as Record<string, unknown>)['access_token'];
    expect(typeof token).toBe('string');
    const kept = await admin.query<{ body: Buffer; results: unknown }>(
      'select body, results from idempotency_keys where key = $1',
      [key],
    );
    expect(kept.rows).toHaveLength(1);
    const stored = kept.rows[0]!.body;
    expect(stored.length).toBeGreaterThan(first.text.length);
    for (const secret of [token as string, first.text]) {
      expect(stored.includes(Buffer.from(secret))).toBe(false);
      expect(stored.toString('latin1')).not.toContain(secret.slice(0, 24));
    }
    const retry = await rest.post('/auth/login', credentials, { headers });
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(retry.text).toBe(first.text);
    // A sealed answer moved to another key's row does not open there: it is bound to its own.
    const other = newKey();
    await rest.post('/auth/login', credentials, { headers: { 'idempotency-key': other } });
    await admin.query('update idempotency_keys set body = $1 where key = $2', [stored, other]);
    const moved = await rest.post('/auth/login', credentials, {
      headers: { 'idempotency-key': other },
    });
    expect(moved.status).toBe(500);
  });

  it('answers a request without the header as before: no key kept, no statement added', async () => {
    const before = Number(
      (await admin.query('select count(*) from idempotency_keys')).rows[0].count,
    );
    const body = aMeeting();
    const plain = [await create(owner, body), await create(owner, body)];
    expect(plain.map((answer) => [answer.status, answer.headers.get(REPLAYED)])).toEqual([
      [201, null],
      [201, null],
    ]);
    expect(await meetingsTitled(titleOf(body))).toBe(2);
    expect(Number((await admin.query('select count(*) from idempotency_keys')).rows[0].count)).toBe(
      before,
    );
    // A keyed request costs three statements more (claim, mark in the write's transaction,
    // keep the answer); a plain one none of them.
    const unkeyed = await t.countQueries(() => create(owner, aMeeting()));
    const keyed = await t.countQueries(() => create(owner, aMeeting(), newKey()));
    expect(keyed - unkeyed).toBe(3);
  });

  it('refuses a malformed key with 400 IDEMPOTENCY_KEY_INVALID, and takes the draft’s quoted form', async () => {
    for (const key of ['', ' ', 'x'.repeat(256), 'tab\there', 'caf\u00e9', '""']) {
      const answer = await create(owner, aMeeting(), key);
      expect({ key, status: answer.status, body: answer.body }).toEqual({
        key,
        status: 400,
        body: { errors: 'IDEMPOTENCY_KEY_INVALID' },
      });
    }
    const longest = await create(owner, aMeeting(), `a b${'x'.repeat(252)}`);
    expect(longest.status).toBe(201);
    // `"k"` (a Structured Field string) and `k` are the same key.
    const key = newKey();
    const body = aMeeting();
    const quoted = await create(owner, body, `"${key}"`);
    const bare = await create(owner, body, key);
    expect(answerOf(bare)).toEqual(answerOf(quoted));
    expect(bare.headers.get(REPLAYED)).toBe('true');
  });

  it('keys GraphQL mutations: a retry is replayed, another request refused; queries pass untouched', async () => {
    const key = newKey();
    const variables = {
      meeting: {
        title: `Keyed GraphQL ${key}`.slice(0, 40),
        startTime: new Date(Date.now() + 86_400_000).toISOString(),
        location: 'Room 1',
      },
      participants: [{ userId: bob.id }],
    };
    const first = await graphql(CREATE_MEETING, variables, { token: owner.token, key });
    const retry = await graphql(CREATE_MEETING, variables, { token: owner.token, key });
    expect(first.body.errors).toBeUndefined();
    expect(answerOf(retry)).toEqual(answerOf(first));
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(await meetingsTitled(variables.meeting.title)).toBe(1);

    const other = { ...variables, meeting: { ...variables.meeting, location: 'Room 2' } };
    const reused = await graphql(CREATE_MEETING, other, { token: owner.token, key });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({
      errors: [
        {
          message: expect.any(String),
          extensions: { code: 'BAD_USER_INPUT', reason: 'IDEMPOTENCY_KEY_REUSED' },
        },
      ],
    });
    const invalid = await graphql(CREATE_MEETING, variables, {
      token: owner.token,
      key: 'x'.repeat(300),
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'IDEMPOTENCY_KEY_INVALID',
    });

    // A query with the header (even a malformed one) runs as ever, every time.
    for (const queryKey of [key, key, '']) {
      const me = await graphql('{ me { id } }', {}, { token: owner.token, key: queryKey });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        data: { me: { id: owner.id } },
        extensions: { cost: { requested: 1, actual: 1 } },
      });
      expect(me.headers.get(REPLAYED)).toBeNull();
    }
  });

  it('answers 409 while a first request holds the key, and lets a retry take over a key abandoned past the bound', async () => {
    const key = newKey();
    const body = aMeeting();
    await create(owner, body, key);
    // As if the first request were still running: a retry waits its turn.
    await admin.query(
      `update idempotency_keys set state = 'running', claimed_at = now(), status = null,
         headers = null, body = null where key = $1`,
      [key],
    );
    const busy = await create(owner, body, key);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ errors: 'IDEMPOTENCY_KEY_IN_USE' });
    // As if it had crashed before writing, longer ago than twice the request timeout.
    await admin.query(
      `update idempotency_keys set claimed_at = now() - interval '61 seconds' where key = $1`,
      [key],
    );
    const taken = await create(owner, body, key);
    expect(taken.status).toBe(201);
    expect(taken.headers.get(REPLAYED)).toBeNull();
    // And a key past its 24 hours is a new key, whatever request came with it before.
    await admin.query(`update idempotency_keys set expires_at = now() where key = $1`, [key]);
    expect((await create(owner, aMeeting(), key)).status).toBe(201);
  });

  describe('when the connection is lost', () => {
    type PgConnection = {
      query: (...args: unknown[]) => unknown;
      processID: number;
      once(event: 'end', listener: () => void): void;
    };
    let lose: 'after-commit' | 'at-begin' | null = null;

    /**
     * Wraps the pool's connections (test-side only, no seam in the service): the next
     * transaction's COMMIT goes to the server (or its BEGIN does not), then the backend is
     * terminated (pg_terminate_backend) and, once the connection has closed, the service hears
     * what the driver reports when a connection drops before its answer arrives.
     */
    beforeAll(() => {
      const pool = t.instance.database.pool;
      const acquire = pool.connect.bind(pool);
      const wrapped = new WeakSet<PgConnection>();
      pool.connect = async () => {
        const pooled = await acquire();
        const connection = pooled.client as unknown as PgConnection;
        if (!wrapped.has(connection)) {
          wrapped.add(connection);
          const query = connection.query;
          connection.query = function (this: PgConnection, ...args: unknown[]) {
            const [config] = args;
            const text = typeof config === 'string' ? config : (config as { text?: unknown }).text;
            // `commit` from the service's own transactions and from Kysely's (the ORM's).
            const statement = String(text).toLowerCase().replace(/;$/, '');
            const fails = lose === 'after-commit' ? 'commit' : lose === 'at-begin' ? 'begin' : null;
            if (statement !== fails) {
              return query.apply(this, args);
            }
            lose = null;
            const last = args[args.length - 1];
            const callback = typeof last === 'function' ? (last as (e: unknown) => void) : null;
            const lost = (async () => {
              if (statement === 'commit') {
                await new Promise((resolve, reject) =>
                  query.call(this, config, (error: unknown) =>
                    error ? reject(error) : resolve(null),
                  ),
                );
              }
              const ended = new Promise((resolve) => connection.once('end', () => resolve(null)));
              await admin.query('select pg_terminate_backend($1)', [connection.processID]);
              // As the driver does: the error is heard once the connection has closed.
              await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2_000))]);
              throw new Error('Connection terminated unexpectedly');
            })();
            if (callback) {
              lost.catch(callback);
              return undefined;
            }
            return lost;
          };
        }
        return pooled;
      };
    });

    it('answers a write whose commit was answered 503 with its real success on retry, writing once', async () => {
      const key = newKey();
      const body = aMeeting([bob.id, carol.id]);
      lose = 'after-commit';
      const lost = await create(owner, body, key);
      expect(lost.status).toBe(503);
      expect(lost.body).toEqual({ errors: 'SERVICE_UNAVAILABLE' });
      expect(await meetingsTitled(titleOf(body))).toBe(1);

      const retry = await create(owner, body, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get(REPLAYED)).toBe('true');
      const stored = await rest.get(`/meeting/${retry.body.id}`, { token: owner.token });
      expect(retry.body).toEqual(stored.body);
      expect(retry.body).toMatchObject({ title: titleOf(body), owner_id: owner.id });
      expect(await meetingsTitled(titleOf(body))).toBe(1);
      // From now on the rebuilt answer is the kept one.
      const again = await create(owner, body, key);
      expect(answerOf(again)).toEqual(answerOf(retry));
    });

    it('does the same for a GraphQL mutation', async () => {
      const key = newKey();
      const variables = {
        meeting: {
          title: `Lost GraphQL ${keys}`,
          startTime: new Date(Date.now() + 86_400_000).toISOString(),
          location: 'Room 3',
        },
        participants: [{ userId: carol.id }],
      };
      lose = 'after-commit';
      const lost = await graphql(CREATE_MEETING, variables, { token: owner.token, key });
      expect(lost.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      const retry = await graphql(CREATE_MEETING, variables, { token: owner.token, key });
      expect(retry.status).toBe(200);
      expect(retry.body.errors).toBeUndefined();
      expect(retry.body.data.createMeeting.meeting).toMatchObject({
        title: variables.meeting.title,
        status: 'PENDING',
      });
      expect(retry.headers.get(REPLAYED)).toBe('true');
      expect(await meetingsTitled(variables.meeting.title)).toBe(1);
    });

    it('does the same for a write in the ORM’s transaction (a follow)', async () => {
      const key = newKey();
      const follow = () =>
        rest.post(`/follow/follow/${carol.id}`, undefined, {
          token: bob.token,
          headers: { 'idempotency-key': key },
        });
      lose = 'after-commit';
      const lost = await follow();
      expect(lost.status).toBe(503);
      const retry = await follow();
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ message: 'User followed successfully' });
      // Rebuilt from the mark the follow's own transaction committed.
      expect(retry.headers.get(REPLAYED)).toBe('true');
      const follows = await admin.query(
        'select count(*) from follows where follower_id = $1 and following_id = $2',
        [bob.id, carol.id],
      );
      expect(Number(follows.rows[0].count)).toBe(1);
    });

    it('keeps no 503 that wrote nothing: the retry runs again', async () => {
      const key = newKey();
      const body = aMeeting();
      lose = 'at-begin';
      const lost = await create(owner, body, key);
      expect(lost.status).toBe(503);
      expect(await meetingsTitled(titleOf(body))).toBe(0);
      const retry = await create(owner, body, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get(REPLAYED)).toBeNull();
      expect(await meetingsTitled(titleOf(body))).toBe(1);
    });
  });
});
