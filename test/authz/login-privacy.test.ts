import { performance } from 'node:perf_hooks';
import { type AppInstance, createApp } from '../../src/app';
import { DEFAULT_HASH_COST } from '../../src/platform/auth/password';
import { loadConfig } from '../../src/app-config';
import { GraphQLClient } from '../helpers/graphql-client';
import { RestClient, type RestBody, type RestResponse } from '../helpers/rest-client';
import { type SeededUser, Seed } from '../helpers/seed';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

/*
 * Sign-in must not tell whether an e-mail (or account) exists: the same answer, and about the
 * same time, for an unknown name and for a known one with a wrong password. The service runs
 * with its production argon2id cost here (startTestApp uses a cheap one), so that skipping the
 * hash for unknown names would show as a clear difference in time.
 */

const WRONG = 'Not-The-Password-1';

/** What a client can observe of a REST answer, besides time. */
const observable = (response: RestResponse) => ({
  status: response.status,
  contentType: response.headers.get('content-type'),
  challenge: response.headers.get('www-authenticate'),
  cacheControl: response.headers.get('cache-control'),
  text: response.text,
});

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

describe('login does not reveal whether an e-mail exists', () => {
  let database: TestDatabase;
  let instance: AppInstance;
  let rest: RestClient;
  let gql: GraphQLClient;
  let seed: Seed;
  let known: SeededUser;
  let inactive: SeededUser;
  let deleted: SeededUser;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_AUTH_PER_IP: '1000000',
      RATE_LIMIT_AUTH_PER_ACCOUNT: '1000000',
    });
    instance = await createApp({
      config: { ...config, database: database.config },
      passwordCost: DEFAULT_HASH_COST,
    });
    const url = await instance.listen(0, '127.0.0.1');
    rest = new RestClient(url);
    gql = new GraphQLClient(`${url}/graphql`);
    seed = new Seed(gql, instance.database.orm);
    [known, inactive, deleted] = (await seed.users(3)) as [SeededUser, SeededUser, SeededUser];
    await seed.update(inactive, { isActive: false });
    await seed.update(deleted, { deletedAt: '2026-01-01' });
  });
  afterAll(async () => {
    await instance.close();
    await database.drop();
  });

  const unknownEmail = () => `nobody.${Math.random().toString(36).slice(2, 8)}@example.com`;

  const encodings: Array<[string, (email: string, password: string) => RestBody]> = [
    ['JSON', (email, password) => ({ json: { email, password } })],
    ['a form', (email, password) => ({ form: { email, password } })],
    ['multipart', (email, password) => ({ multipart: { email, password } })],
  ];

  it.each(encodings)(
    'POST /auth/login in %s answers an unknown e-mail exactly like a wrong password',
    async (_encoding, body) => {
      const answers = {
        unknownEmail: observable(await rest.post('/auth/login', body(unknownEmail(), WRONG))),
        wrongPassword: observable(await rest.post('/auth/login', body(known.email, WRONG))),
        wrongCase: observable(
          await rest.post('/auth/login', body(known.email, known.password.toUpperCase())),
        ),
        inactiveUser: observable(
          await rest.post('/auth/login', body(inactive.email, inactive.password)),
        ),
        deletedUser: observable(
          await rest.post('/auth/login', body(deleted.email, deleted.password)),
        ),
      };
      const expected = {
        status: 401,
        contentType: expect.stringMatching(/^application\/json/),
        challenge: 'Bearer realm="api"',
        cacheControl: answers.wrongPassword.cacheControl,
        text: JSON.stringify({ errors: 'INCORRECT_EMAIL_OR_PASSWORD' }),
      };
      expect(answers).toEqual({
        unknownEmail: expected,
        wrongPassword: expected,
        wrongCase: expected,
        inactiveUser: expected,
        deletedUser: expected,
      });
    },
  );

  it('POST /auth/token (password grant) answers an unknown name exactly like a wrong password', async () => {
    const grant = (username: string, password: string) =>
      rest.post('/auth/token', { form: { grant_type: 'password', username, password } });
    const unknown = observable(await grant(unknownEmail(), WRONG));
    const unknownAccount = observable(await grant('no.such.account', WRONG));
    const wrong = observable(await grant(known.email, WRONG));
    const wrongByAccount = observable(await grant(known.account, WRONG));
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.text)).toMatchObject({ error: 'invalid_grant' });
    expect({ unknown, unknownAccount, wrongByAccount }).toEqual({
      unknown: wrong,
      unknownAccount: wrong,
      wrongByAccount: wrong,
    });
  });

  it('the GraphQL login answers an unknown e-mail or account exactly like a wrong password', async () => {
    const LOGIN = `mutation ($username: String!, $password: String!) {
      login(input: { username: $username, password: $password }) { tokens { accessToken } }
    }`;
    const answer = async (username: string, password: string) => {
      const result = await gql.request(LOGIN, { username, password });
      return JSON.stringify({ status: result.status, data: result.data, errors: result.errors });
    };
    const wrong = await answer(known.email, WRONG);
    expect(JSON.parse(wrong)).toMatchObject({
      data: null,
      errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'INCORRECT_EMAIL_OR_PASSWORD' } }],
    });
    expect({
      unknownEmail: await answer(unknownEmail(), WRONG),
      unknownAccount: await answer('no.such.account', WRONG),
      wrongByAccount: await answer(known.account, WRONG),
      inactiveUser: await answer(inactive.email, inactive.password),
    }).toEqual({
      unknownEmail: wrong,
      unknownAccount: wrong,
      wrongByAccount: wrong,
      inactiveUser: wrong,
    });
  });

  it('an unknown e-mail takes about as long as a wrong password (medians within a factor of 2)', async () => {
    const ATTEMPTS = 15;
    const timed = async (email: string): Promise<number> => {
      const started = performance.now();
      const response = await rest.post('/auth/login', { json: { email, password: WRONG } });
      const elapsed = performance.now() - started;
      expect(response.status).toBe(401);
      return elapsed;
    };
    // Warm up both paths (the dummy hash is made on first use; connections and JIT settle).
    for (let i = 0; i < 3; i += 1) {
      await timed(unknownEmail());
      await timed(known.email);
    }
    const samples = { unknown: [] as number[], wrong: [] as number[], inactive: [] as number[] };
    // Interleaved, so a burst of load on the machine hits all paths alike.
    for (let i = 0; i < ATTEMPTS; i += 1) {
      samples.unknown.push(await timed(unknownEmail()));
      samples.wrong.push(await timed(known.email));
      samples.inactive.push(await timed(inactive.email));
    }
    const medians = {
      unknown: median(samples.unknown),
      wrong: median(samples.wrong),
      inactive: median(samples.inactive),
    };
    const ratio = medians.unknown / medians.wrong;
    console.log(
      `login timing over ${ATTEMPTS} attempts each (argon2id ${DEFAULT_HASH_COST.memoryCost} KiB, ` +
        `t=${DEFAULT_HASH_COST.timeCost}): median unknown e-mail ${medians.unknown.toFixed(1)} ms, ` +
        `wrong password ${medians.wrong.toFixed(1)} ms, inactive user ${medians.inactive.toFixed(1)} ms, ` +
        `ratio ${ratio.toFixed(2)}`,
    );
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
    const inactiveRatio = medians.inactive / medians.wrong;
    expect(inactiveRatio).toBeGreaterThan(0.5);
    expect(inactiveRatio).toBeLessThan(2);
  });
});
