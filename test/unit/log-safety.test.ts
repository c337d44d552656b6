import { DriverException } from '@mikro-orm/core';
import { scrub, serializeError } from '../../src/platform/observability/log-safety';

describe('log safety', () => {
  it('masks password hashes, tokens and e-mail addresses in any text', () => {
    expect(
      scrub(
        "values ('ada@example.com', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA') " +
          'Bearer eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
      ),
    ).toBe("values ('[email]', '[hash]') Bearer [token]");
  });

  it("keeps only the driver's part of a message prefixed with the statement (as knex, under MikroORM 6, prefixed it)", () => {
    const error = Object.assign(
      new Error(
        `insert into "users" ("email", "password_hash") values ('ada@example.com', '$argon2id$x') - terminating connection due to administrator command`,
      ),
      { code: '57P01', severity: 'FATAL', detail: 'Key (email)=(ada@example.com) exists' },
    );
    expect(serializeError(error)).toEqual({
      type: 'Error',
      message: 'terminating connection due to administrator command',
      code: '57P01',
      severity: 'FATAL',
      stack: expect.stringMatching(/^\s+at /),
    });
  });

  it('logs a wrapped driver error and its cause through the same whitelist', () => {
    const cause = Object.assign(new Error('select "u".* from "users" - boom'), { query: 'x' });
    const error = new DriverException(cause);
    const logged = JSON.stringify(serializeError(error));
    expect(logged).not.toMatch(/select|users"|query/);
    expect(logged).toContain('boom');
  });
});
