import { User } from '../../src/modules/user/user.entity';
import type { SeededUser } from '../helpers/seed';
import { useTestApp } from '../helpers/use-test-app';
import {
  expectAnswer,
  inBatches,
  keysOf,
  type RestUser,
  signUpViaRest,
  sortedKeys,
  USER_PUBLIC_KEYS,
  userPublic,
  type WireUser,
} from './rest-fixtures';

interface UserPage {
  data: WireUser[];
  count: number;
}

/** The order the contract promises for search: name, then id. */
const byNameThenId = (a: WireUser, b: WireUser): number =>
  a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1;

describe('users over REST', () => {
  const t = useTestApp();
  const { rest } = t;
  let viewer: RestUser;
  /** 23 active "Quokka" users; names chosen so that every collation orders them alike. */
  let quokkas: SeededUser[];
  let inactive: SeededUser;
  let deleted: SeededUser;

  beforeAll(async () => {
    viewer = await signUpViaRest(rest, { name: 'Viewer of Users', account: 'user.viewer' });
    const names = [
      ...Array.from({ length: 20 }, (_, i) => `Quokka ${String.fromCharCode(65 + i)} Person`),
      // Three namesakes: their order is decided by id.
      'Quokka Twin Person',
      'Quokka Twin Person',
      'Quokka Twin Person',
    ];
    quokkas = await inBatches(names.reverse(), 4, (name) => t.seed.user({ name }));
    [inactive, deleted] = (await inBatches([1, 2], 2, (i) =>
      t.seed.user({ name: `Quokka Hidden ${i} Person` }),
    )) as [SeededUser, SeededUser];
    await t.seed.update(inactive, { isActive: false });
    await t.seed.update(deleted, { deletedAt: '2026-01-01' });
  });

  const search = (query: Record<string, string | number | Array<string | number>>) =>
    rest.get<UserPage>('/user/search', { token: viewer.token, query });

  describe('GET /api/v1/user/me', () => {
    it('answers the caller as the whole public record, and nothing more', async () => {
      const response = await rest.get<WireUser>('/user/me', { token: viewer.token });
      expectAnswer(response, 200, {
        ...viewer.user,
        name: 'Viewer of Users',
        account: 'user.viewer',
        email: 'user.viewer@example.com',
      });
      expect(response.body).toEqual(userPublic({ id: viewer.user.id }));
      expect(keysOf(response.body)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
      expect(response.text).not.toMatch(/password|hash/i);
    });
  });

  it('answers a date of birth as a YYYY-MM-DD date', async () => {
    const born = await t.seed.user({ name: 'Birthday Person' });
    await t.instance.database.orm.em
      .fork()
      .nativeUpdate(User, { id: born.id }, { dob: '1990-02-28' });
    expectAnswer(
      await rest.get('/user/me', { token: born.token }),
      200,
      userPublic({
        id: born.id,
        name: born.name,
        account: born.account,
        email: born.email,
        dob: '1990-02-28',
      }),
    );
  });

  describe('GET /api/v1/user/{account}', () => {
    it('answers a user by account name, whatever its case', async () => {
      const quokka = quokkas[0] as SeededUser;
      const response = await rest.get<WireUser>(`/user/${quokka.account.toUpperCase()}`, {
        token: viewer.token,
      });
      expectAnswer(
        response,
        200,
        userPublic({
          id: quokka.id,
          name: quokka.name,
          account: quokka.account,
          email: quokka.email,
        }),
      );
    });

    it('answers 404 USER_NOT_FOUND for an unknown, inactive or deleted account', async () => {
      for (const account of ['nobody.here', inactive.account, deleted.account]) {
        expectAnswer(await rest.get(`/user/${account}`, { token: viewer.token }), 404, {
          errors: 'USER_NOT_FOUND',
        });
      }
    });
  });

  describe('GET /api/v1/user/search', () => {
    it('answers the first page of 20 by default, ordered by name then id, with the total count', async () => {
      const response = await search({ q: 'quokka' });
      const expected = (await search({ q: 'quokka', limit: 100 })).body.data;
      expect(expected).toHaveLength(23);
      expect([...expected].sort(byNameThenId)).toEqual(expected);
      expectAnswer(response, 200, { data: expected.slice(0, 20), count: 23 });
      for (const user of response.body.data) {
        expect(user).toEqual(userPublic());
        expect(keysOf(user)).toEqual(sortedKeys(USER_PUBLIC_KEYS));
      }
    });

    it('orders namesakes by id', async () => {
      const twins = (await search({ q: 'Twin' })).body.data;
      expect(twins.map((u) => u.name)).toEqual(Array(3).fill('Quokka Twin Person'));
      expect(twins.map((u) => u.id)).toEqual(twins.map((u) => u.id).sort());
    });

    it('pages with skip and limit while count stays the total', async () => {
      const all = (await search({ q: 'quokka', limit: 100 })).body.data;
      const pages = await Promise.all(
        [0, 10, 20].map((skip) => search({ q: 'quokka', skip, limit: 10 })),
      );
      expect(pages.map((page) => page.body.count)).toEqual([23, 23, 23]);
      expect(pages.map((page) => page.body.data.length)).toEqual([10, 10, 3]);
      expect(pages.flatMap((page) => page.body.data)).toEqual(all);
      expectAnswer(await search({ q: 'quokka', skip: 30 }), 200, { data: [], count: 23 });
    });

    it('matches name, account or email case-insensitively, and trims q', async () => {
      const quokka = quokkas[5] as SeededUser;
      const byAccount = await search({ q: `  ${quokka.account.toUpperCase()}  ` });
      expectAnswer(byAccount, 200, {
        data: [expect.objectContaining({ id: quokka.id })],
        count: 1,
      });
      const byEmail = await search({ q: `${quokka.account}@EXAMPLE` });
      expect(byEmail.body).toEqual(byAccount.body);
      const byName = await search({ q: ' Twin Person ' });
      expect(byName.body.count).toBe(3);
    });

    it('excludes inactive and deleted users', async () => {
      expectAnswer(await search({ q: 'quokka hidden' }), 200, { data: [], count: 0 });
    });

    it('accepts q of 2 and 100 characters and limit of 1 and 100', async () => {
      expect((await search({ q: 'qu', limit: 1 })).body).toEqual({
        data: [expect.objectContaining({ name: 'Quokka A Person' })],
        count: 23,
      });
      expectAnswer(await search({ q: 'q'.repeat(100), limit: 100 }), 200, { data: [], count: 0 });
      expectAnswer(await search({ q: `  ${'q'.repeat(100)}  ` }), 200, { data: [], count: 0 });
      expect((await search({ q: 'quokka', skip: 0 })).status).toBe(200);
    });

    it('refuses a missing, too short (after trimming) or too long q', async () => {
      expectAnswer(await search({}), 422, { errors: { q: 'VALIDATION_Q_REQUIRED' } });
      expectAnswer(await search({ q: 'q' }), 422, { errors: { q: 'VALIDATION_Q_TOO_SHORT' } });
      expectAnswer(await search({ q: ' q ' }), 422, { errors: { q: 'VALIDATION_Q_TOO_SHORT' } });
      expectAnswer(await search({ q: 'q'.repeat(101) }), 422, {
        errors: { q: 'VALIDATION_Q_TOO_LONG' },
      });
    });

    it('refuses limit 0 and 101 and a negative skip', async () => {
      expectAnswer(await search({ q: 'quokka', limit: 0 }), 422, {
        errors: { limit: 'VALIDATION_LIMIT_TOO_SMALL' },
      });
      expectAnswer(await search({ q: 'quokka', limit: 101 }), 422, {
        errors: { limit: 'VALIDATION_LIMIT_TOO_LARGE' },
      });
      expectAnswer(await search({ q: 'quokka', skip: -1 }), 422, {
        errors: { skip: 'VALIDATION_SKIP_TOO_SMALL' },
      });
    });

    it('reports every bad parameter at once', async () => {
      expectAnswer(await search({ q: 'q', skip: -1, limit: 101 }), 422, {
        errors: {
          q: 'VALIDATION_Q_TOO_SHORT',
          skip: 'VALIDATION_SKIP_TOO_SMALL',
          limit: 'VALIDATION_LIMIT_TOO_LARGE',
        },
      });
    });

    it('refuses a limit or skip that is not an integer', async () => {
      for (const limit of ['1.5', 'ten', '', '1e1', '0x10']) {
        expectAnswer(await search({ q: 'quokka', limit }), 422, {
          errors: { limit: 'VALIDATION_LIMIT_MUST_BE_INTEGER' },
        });
      }
      expectAnswer(await search({ q: 'quokka', skip: 'first' }), 422, {
        errors: { skip: 'VALIDATION_SKIP_MUST_BE_INTEGER' },
      });
      expectAnswer(await search({ q: 'quokka', limit: '99999999999' }), 422, {
        errors: { limit: 'VALIDATION_LIMIT_TOO_LARGE' },
      });
    });

    it('refuses a repeated query key with 422 on that key, never a 5xx', async () => {
      const limit = await search({ q: 'quokka', limit: [5, 6] });
      expect(limit.status).toBe(422);
      expect(limit.body).toEqual({
        errors: { limit: expect.stringMatching(/^VALIDATION_LIMIT_[A-Z_]+$/) },
      });
      const q = await search({ q: ['quokka', 'person'] });
      expect(q.status).toBe(422);
      expect(q.body).toEqual({ errors: { q: expect.stringMatching(/^VALIDATION_Q_[A-Z_]+$/) } });
    });

    it('treats %, _ and \\ in q as literal characters', async () => {
      expectAnswer(await search({ q: '%%' }), 200, { data: [], count: 0 });
      expectAnswer(await search({ q: '__' }), 200, { data: [], count: 0 });
      expectAnswer(await search({ q: '\\\\' }), 200, { data: [], count: 0 });
    });
  });
});
