import { serializeError } from '../../src/platform/observability/log-safety';
import { executeRows } from '../../src/platform/sql/rows';
import { useOpenedDatabase } from '../helpers/test-database';

// What the log-safety unit test checks of knex's messages (the statement, values inlined, in
// front of the driver's message), checked here on the stack that runs: MikroORM 7 over Kysely
// and pg, and the service's own raw statements.

const database = useOpenedDatabase();
const em = () => database().orm.em.fork();
const SECRET = 'ada@example.com $argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA';

beforeAll(async () => {
  await executeRows(em(), 'create table "secrets" ("id" int primary key, "value" text not null)');
  await executeRows(em(), 'insert into "secrets" values (?, ?)', [1, SECRET]);
});

/** The logged form of what `fail` threw, as one string. */
async function loggedFailure(fail: () => Promise<unknown>): Promise<string> {
  const error: unknown = await fail().then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  return JSON.stringify(serializeError(error));
}

describe('a failed statement, as logged', () => {
  it('names the constraint, but neither the statement nor its values, through the ORM', async () => {
    const logged = await loggedFailure(() =>
      em().getConnection().execute(`insert into "secrets" values (1, '${SECRET}')`),
    );
    expect(logged).toContain('secrets_pkey');
    expect(logged).not.toMatch(/insert into|argon2|ada@|c2FsdA/);
  });

  it('names the constraint, but neither the statement nor its values, through a raw statement', async () => {
    const logged = await loggedFailure(() =>
      executeRows(em(), 'insert into "secrets" values (?, ?)', [1, SECRET]),
    );
    expect(logged).toContain('secrets_pkey');
    expect(logged).not.toMatch(/insert into|argon2|ada@|c2FsdA/);
  });
});
