import { useTestApp } from '../helpers/use-test-app';
import {
  expectAnswer,
  keysOf,
  registerViaRest,
  registration,
  sortedKeys,
  USER_PUBLIC_KEYS,
  userPublic,
  type WireTokens,
  type WireUser,
} from './rest-fixtures';

/** A syntactically valid e-mail address of exactly `length` characters (local part ≤ 64, labels ≤ 63). */
function emailOfLength(length: number, tag: string): string {
  const local = `${tag}.`.padEnd(64, 'x');
  let remaining = length - local.length - 1 - '.com'.length;
  const labels: string[] = [];
  while (remaining > 0) {
    const size = remaining <= 63 ? remaining : Math.min(63, remaining - 2);
    labels.push('d'.repeat(size));
    remaining -= size + (remaining > size ? 1 : 0);
  }
  const email = `${local}@${labels.join('.')}.com`;
  if (email.length !== length) {
    throw new Error(`built an e-mail of ${email.length} characters, not ${length}`);
  }
  return email;
}

describe('POST /api/v1/auth/register', () => {
  const t = useTestApp();
  const { rest } = t;

  it('registers a form-encoded user and answers 201 with the whole public record and its defaults', async () => {
    const { response } = await registerViaRest(rest, {
      name: '  Ada Lovelace  ',
      account: 'Ada.Lovelace',
      email: '  Ada.Lovelace@Example.COM ',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual(
      userPublic({
        name: 'Ada Lovelace',
        account: 'ada.lovelace',
        email: 'ada.lovelace@example.com',
      }),
    );
    expect(keysOf(response.body)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
    expect(response.text).not.toMatch(/password|hash|argon/i);
  });

  it('accepts the same fields as multipart form data', async () => {
    const input = registration({ account: 'multi.part' });
    const response = await rest.post<WireUser>('/auth/register', {
      multipart: input as unknown as Record<string, string>,
    });
    expectAnswer(
      response,
      201,
      userPublic({ name: input.name, account: 'multi.part', email: 'multi.part@example.com' }),
    );
  });

  it('accepts the same fields as JSON', async () => {
    const input = registration({ account: 'json.body' });
    const response = await rest.post<WireUser>('/auth/register', { json: input });
    expectAnswer(
      response,
      201,
      userPublic({ name: input.name, account: 'json.body', email: 'json.body@example.com' }),
    );
  });

  it('accepts a charset parameter on the content type', async () => {
    const input = registration();
    const response = await rest.post('/auth/register', {
      raw: JSON.stringify(input),
      contentType: 'application/json; charset=utf-8',
    });
    expect(response.status).toBe(201);
  });

  it('ignores roles, is_superuser, id and other extra fields: registration never grants privileges', async () => {
    const chosenId = '11111111-1111-4111-8111-111111111111';
    const asJson = await rest.post<WireUser>('/auth/register', {
      json: {
        ...registration({ account: 'sneaky.json' }),
        roles: 'admin',
        is_superuser: true,
        is_active: false,
        is_verified: false,
        id: chosenId,
        bio: 'I am the admin now',
        password_hash: 'x',
      },
    });
    expectAnswer(
      asJson,
      201,
      userPublic({ account: 'sneaky.json', email: 'sneaky.json@example.com' }),
    );
    expect(asJson.body.id).not.toBe(chosenId);
    const asForm = await rest.post<WireUser>('/auth/register', {
      form: {
        ...(registration({ account: 'sneaky.form' }) as unknown as Record<string, string>),
        roles: 'admin',
        is_superuser: 'true',
        id: chosenId,
      },
    });
    expectAnswer(
      asForm,
      201,
      userPublic({ account: 'sneaky.form', email: 'sneaky.form@example.com' }),
    );
    const login = await rest.post<WireTokens>('/auth/login', {
      json: { email: 'sneaky.form@example.com', password: 'Sunrise-Meeting-42' },
    });
    const me = await rest.get<WireUser>('/user/me', { token: login.body.access_token });
    expect(me.body).toMatchObject({ roles: 'user', is_superuser: false, id: asForm.body.id });
  });

  it('refuses an email already registered, whatever its case, with 409 EMAIL_ALREADY_REGISTERED', async () => {
    await registerViaRest(rest, { account: 'first.owner', email: 'taken@example.com' });
    const { response } = await registerViaRest(rest, {
      account: 'second.owner',
      email: ' TAKEN@Example.com ',
    });
    expectAnswer(response, 409, { errors: 'EMAIL_ALREADY_REGISTERED' });
  });

  it('refuses an account already taken, whatever its case, with 409 ACCOUNT_NAME_ALREADY_TAKEN', async () => {
    await registerViaRest(rest, { account: 'popular.name' });
    const { response } = await registerViaRest(rest, {
      account: 'POPULAR.Name',
      email: 'someone.else@example.com',
    });
    expectAnswer(response, 409, { errors: 'ACCOUNT_NAME_ALREADY_TAKEN' });
  });

  it('reports every missing field as REQUIRED, keyed as the client names it', async () => {
    const response = await rest.post('/auth/register', { form: {} });
    expectAnswer(response, 422, {
      errors: {
        name: 'VALIDATION_NAME_REQUIRED',
        account: 'VALIDATION_ACCOUNT_REQUIRED',
        email: 'VALIDATION_EMAIL_REQUIRED',
        password: 'VALIDATION_PASSWORD_REQUIRED',
        password_confirm: 'VALIDATION_PASSWORD_CONFIRM_REQUIRED',
      },
    });
    const noBody = await rest.post('/auth/register');
    expect(noBody.status).toBe(422);
    expect(noBody.body).toEqual(response.body);
  });

  it('refuses a password confirmation that differs, even only in case, with VALIDATION_PASSWORD_CONFIRM_MISMATCH', async () => {
    const { response } = await registerViaRest(rest, {
      password: 'Sunrise-Meeting-42',
      password_confirm: 'sunrise-meeting-42',
    });
    expectAnswer(response, 422, {
      errors: { password_confirm: 'VALIDATION_PASSWORD_CONFIRM_MISMATCH' },
    });
  });

  it('accepts every field at its bounds', async () => {
    const atLowerBounds = await registerViaRest(rest, {
      name: 'N'.repeat(8),
      account: 'abc',
      password: 'p'.repeat(8),
      password_confirm: 'p'.repeat(8),
    });
    expectAnswer(atLowerBounds.response, 201, userPublic({ name: 'N'.repeat(8), account: 'abc' }));
    const atUpperBounds = await registerViaRest(rest, {
      name: 'M'.repeat(40),
      account: 'a'.repeat(32),
      password: 'P'.repeat(128),
      password_confirm: 'P'.repeat(128),
    });
    expectAnswer(
      atUpperBounds.response,
      201,
      userPublic({ name: 'M'.repeat(40), account: 'a'.repeat(32) }),
    );
  });

  it('accepts an email of exactly 255 characters', async () => {
    const email = emailOfLength(255, 'max');
    const { response } = await registerViaRest(rest, { email });
    expectAnswer(response, 201, userPublic({ email }));
  });

  it('refuses every field just beyond its lower bound', async () => {
    const { response } = await registerViaRest(rest, {
      name: 'N'.repeat(7),
      account: 'ab',
      password: 'p'.repeat(7),
      password_confirm: 'p'.repeat(7),
    });
    expectAnswer(response, 422, {
      errors: {
        name: 'VALIDATION_NAME_TOO_SHORT',
        account: 'VALIDATION_ACCOUNT_TOO_SHORT',
        password: 'VALIDATION_PASSWORD_TOO_SHORT',
      },
    });
  });

  it('counts the name after trimming', async () => {
    const { response } = await registerViaRest(rest, { name: '   Seven77   ' });
    expectAnswer(response, 422, { errors: { name: 'VALIDATION_NAME_TOO_SHORT' } });
  });

  it('refuses every field just beyond its upper bound', async () => {
    const { response } = await registerViaRest(rest, {
      name: 'M'.repeat(41),
      account: 'a'.repeat(33),
      email: emailOfLength(256, 'over'),
      password: 'P'.repeat(129),
      password_confirm: 'P'.repeat(129),
    });
    expectAnswer(response, 422, {
      errors: {
        name: 'VALIDATION_NAME_TOO_LONG',
        account: 'VALIDATION_ACCOUNT_TOO_LONG',
        email: 'VALIDATION_EMAIL_TOO_LONG',
        password: 'VALIDATION_PASSWORD_TOO_LONG',
      },
    });
  });

  it('refuses an invalid email and an account outside a-z 0-9 . _ -', async () => {
    const { response } = await registerViaRest(rest, {
      email: 'not-an-email',
      account: 'with space',
    });
    expectAnswer(response, 422, {
      errors: {
        email: 'VALIDATION_EMAIL_INVALID_EMAIL',
        account: 'VALIDATION_ACCOUNT_INVALID_FORMAT',
      },
    });
  });

  it('refuses a JSON field that is not a string', async () => {
    const response = await rest.post('/auth/register', {
      json: { ...registration(), name: 12345678 },
    });
    expectAnswer(response, 422, { errors: { name: 'VALIDATION_NAME_MUST_BE_STRING' } });
  });

  it('reports a value of the wrong JSON type together with the other bad fields', async () => {
    const response = await rest.post('/auth/register', {
      json: { ...registration(), name: 12345678, password: 'short', password_confirm: 'short' },
    });
    expectAnswer(response, 422, {
      errors: {
        name: 'VALIDATION_NAME_MUST_BE_STRING',
        password: 'VALIDATION_PASSWORD_TOO_SHORT',
      },
    });
  });

  it('trims the name before checking its bounds and storing it', async () => {
    const name = `   ${'M'.repeat(40)}   `;
    const { response } = await registerViaRest(rest, { name });
    expectAnswer(response, 201, userPublic({ name: 'M'.repeat(40) }));
  });

  it('lets exactly one of concurrent registrations of the same email or account win', async () => {
    const sameEmail = await Promise.all(
      ['race.one', 'race.two', 'race.three', 'race.four'].map((account, i) =>
        registerViaRest(rest, {
          account,
          email: i % 2 ? 'RACE@example.com' : 'race@example.com',
        }),
      ),
    );
    expect(sameEmail.map(({ response }) => response.status).sort()).toEqual([201, 409, 409, 409]);
    for (const { response } of sameEmail.filter(({ response }) => response.status === 409)) {
      expect(response.body).toEqual({ errors: 'EMAIL_ALREADY_REGISTERED' });
    }
    const sameAccount = await Promise.all(
      ['dash.race', 'DASH.race', 'Dash.Race', 'dash.RACE'].map((account, i) =>
        registerViaRest(rest, { account, email: `dash.race.${i}@example.com` }),
      ),
    );
    expect(sameAccount.map(({ response }) => response.status).sort()).toEqual([201, 409, 409, 409]);
    for (const { response } of sameAccount.filter(({ response }) => response.status === 409)) {
      expect(response.body).toEqual({ errors: 'ACCOUNT_NAME_ALREADY_TAKEN' });
    }
  });

  it('does not need a token', async () => {
    const { response } = await registerViaRest(rest);
    expect(response.status).toBe(201);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});
