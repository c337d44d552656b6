import type { MikroORM } from '@mikro-orm/postgresql';
import { User } from '../../src/modules/user/user.entity';
import type { GraphQLClient } from './graphql-client';

/** A registered, signed-in user. */
export interface SeededUser {
  id: string;
  name: string;
  account: string;
  email: string;
  password: string;
  token: string;
}

/** A created meeting. */
export interface SeededMeeting {
  id: string;
  ownerId: string;
  status: string;
}

const REGISTER = `mutation ($name: String!, $account: String!, $email: String!, $password: String!) {
  register(input: { name: $name, account: $account, email: $email, password: $password, passwordConfirm: $password }) {
    user { id }
  }
}`;
const LOGIN = `mutation ($username: String!, $password: String!) {
  login(input: { username: $username, password: $password }) { tokens { accessToken } }
}`;
const CREATE_MEETING = `mutation ($meeting: MeetingInput!, $participants: [ParticipantInput!]!) {
  createMeeting(input: { meeting: $meeting, participants: $participants }) {
    meeting { id ownerId status }
  }
}`;

/** Builds a meeting step by step: `await seed.meeting(alice).inviting(bob).create()`. */
export class MeetingBuilder {
  private title = 'Weekly sync';
  private startsInHours = 24;
  private readonly invited: Array<{ userId: string; status?: string }> = [];

  constructor(
    private readonly gql: GraphQLClient,
    private readonly owner: SeededUser,
  ) {}

  titled(title: string): this {
    this.title = title;
    return this;
  }

  startingInHours(hours: number): this {
    this.startsInHours = hours;
    return this;
  }

  inviting(...users: Array<Pick<SeededUser, 'id'>>): this {
    this.invited.push(...users.map((user) => ({ userId: user.id })));
    return this;
  }

  invitingAs(
    status: 'NEW' | 'ACCEPTED' | 'DECLINED',
    ...users: Array<Pick<SeededUser, 'id'>>
  ): this {
    this.invited.push(...users.map((user) => ({ userId: user.id, status })));
    return this;
  }

  async create(): Promise<SeededMeeting> {
    const data = await this.gql.data<{ createMeeting: { meeting: SeededMeeting } }>(
      CREATE_MEETING,
      {
        meeting: {
          title: this.title,
          startTime: new Date(Date.now() + this.startsInHours * 3_600_000).toISOString(),
          location: 'Room 101, HQ',
        },
        participants: this.invited,
      },
      this.owner.token,
    );
    return data.createMeeting.meeting;
  }
}

/** Seeds data through the public API, as a client would. */
export class Seed {
  private counter = 0;

  constructor(
    private readonly gql: GraphQLClient,
    private readonly orm: MikroORM,
  ) {}

  async user(
    overrides: Partial<Pick<SeededUser, 'name' | 'account' | 'email' | 'password'>> = {},
  ): Promise<SeededUser> {
    this.counter += 1;
    // Digits only: a random letter pair in a generated name or account ("26qu3f") would match
    // the letters other tests search for ('qu' found one user too many in CI).
    const random = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
    const suffix = `${this.counter}${random}`;
    const account = overrides.account ?? `user${suffix}`;
    const input = {
      name: overrides.name ?? `Test User ${suffix}`,
      account,
      email: overrides.email ?? `${account}@example.com`,
      password: overrides.password ?? 'correct horse battery',
    };
    const registered = await this.gql.data<{ register: { user: { id: string } } }>(REGISTER, input);
    const login = await this.gql.data<{ login: { tokens: { accessToken: string } } }>(LOGIN, {
      username: input.email,
      password: input.password,
    });
    return { ...input, id: registered.register.user.id, token: login.login.tokens.accessToken };
  }

  async users(count: number): Promise<SeededUser[]> {
    const users: SeededUser[] = [];
    for (let i = 0; i < count; i += 1) {
      users.push(await this.user());
    }
    return users;
  }

  /**
   * Many users at once, written by one insert (registering 500 through the API takes minutes):
   * they cannot sign in, but can be invited, shown and followed.
   */
  async bulkUsers(count: number): Promise<Array<Pick<SeededUser, 'id'>>> {
    this.counter += 1;
    const batch = `${this.counter}${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const rows = await this.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: string }>>(
        `insert into "users" ("id", "created_at", "updated_at", "name", "email", "account", ` +
          `"password_hash") select gen_random_uuid(), now(), now(), 'Bulk user ' || n, ` +
          `'bulk' || ? || '.' || n || '@example.com', 'bulk' || ? || '.' || n, 'not-a-hash' ` +
          `from generate_series(1, ?) n order by n returning "id"`,
        [batch, batch, count],
      );
    return rows.map((row) => ({ id: row.id }));
  }

  meeting(owner: SeededUser): MeetingBuilder {
    return new MeetingBuilder(this.gql, owner);
  }

  /** Changes a user's stored flags directly: no API grants privileges, by design. */
  async update(
    user: SeededUser,
    changes: Partial<
      Pick<User, 'roles' | 'isSuperuser' | 'isActive' | 'deletedAt' | 'emailVerified'>
    >,
  ): Promise<void> {
    await this.orm.em.fork().nativeUpdate(User, { id: user.id }, changes);
  }
}
