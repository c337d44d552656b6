import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OperationDefinitionNode, parse, print } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { codeBlocks, EXECUTED_SH_SECTIONS, readDoc, section } from './markdown';

/*
 * The README's "first meeting in five minutes", run as written against the real service: its
 * shell blocks by bash with curl (the base URL the only change), its GraphQL blocks operation by
 * operation with the variables it gives, as the IDE would send them. Also the API guide's
 * Idempotency-Key example, sent twice after the tour, with the body the tour wrote.
 */

/** Where the docs' commands point; the test's service listens elsewhere. */
const DOCS_BASE = 'http://localhost:8000';

const README = readDoc('README.md');
const TOUR = section(README, 'First meeting in five minutes');

/** Runs `script` with bash in `cwd`, failing on any command or HTTP error; answers stdout. */
function bash(script: string, cwd: string): Promise<string> {
  const strict = [
    'set -euo pipefail',
    // A 4xx or 5xx fails the step (its body is still printed), so a broken command cannot pass.
    'curl() { command curl --fail-with-body "$@"; }',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `${strict}\n${script}`],
      { cwd, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

const shellOf = (text: string): string[] =>
  codeBlocks(text)
    .filter((block) => block.lang === 'sh')
    .map((block) => block.code);

describe('the README tour on REST, with curl', () => {
  let t: TestApp;
  let dir: string;
  let out: string;
  let meetingId: string;

  beforeAll(async () => {
    t = await startTestApp();
    dir = await mkdtemp(join(tmpdir(), 'tour-'));
    const [tour, idempotent, conditional] = EXECUTED_SH_SECTIONS.map(({ file, heading }) =>
      shellOf(section(readDoc(file), heading)),
    ) as [string[], string[], string[]];
    expect(tour).toHaveLength(3);
    expect(idempotent).toHaveLength(1);
    expect(conditional).toHaveLength(1);
    const script = [
      ...tour,
      'echo "MEETING_ID=$MEETING_ID"',
      'echo "--- first"',
      idempotent[0],
      'echo; echo "--- again"',
      idempotent[0],
      'echo; echo "--- conditional"',
      conditional[0],
      'echo; echo "ETAG=$ETAG"',
    ]
      .join('\n')
      .replaceAll(DOCS_BASE, t.url);
    out = await bash(script, dir);
    meetingId = /^MEETING_ID=(\S+)$/m.exec(out)?.[1] ?? '';
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await t?.close();
  });

  const api = (path: string, token: string) =>
    fetch(`${t.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('registers three people, makes the meeting, invites, and both answers land', async () => {
    expect(meetingId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out).toContain('{"message":"Meeting approved successfully"}');
    expect(out).toContain('{"message":"Meeting declined successfully"}');
    const login = await fetch(`${t.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: 'analytical' }),
    });
    const { access_token: ada } = (await login.json()) as { access_token: string };
    const meeting = (await (await api(`/meeting/${meetingId}`, ada)).json()) as {
      title: string;
      status: string;
      participants: { status: string; user: { account: string } }[];
    };
    expect(meeting).toMatchObject({ title: 'Roadmap review', status: 'pending' });
    expect(meeting.participants.map((p) => [p.user.account, p.status])).toEqual([
      ['ada', 'accepted'],
      ['grace', 'accepted'],
      ['alan', 'declined'],
    ]);
  });

  it("shows Grace's invitation among her requests before she answers", () => {
    const requests = out
      .split('\n')
      .find((line) => line.startsWith('[') && line.includes('"status":"new"'));
    expect(JSON.parse(requests ?? 'null')).toEqual([
      expect.objectContaining({ meeting_id: meetingId, status: 'new' }),
    ]);
  });

  it('answers the conditional read example 304, with the tag the first read gave', () => {
    const [, conditional = ''] = out.split(/^--- conditional$/m);
    const etag = /^ETAG=("[A-Za-z0-9_-]{27}")$/m.exec(conditional)?.[1];
    expect(etag).toBeDefined();
    expect(conditional).toMatch(/^HTTP\/1\.1 304 Not Modified/m);
    expect(conditional.toLowerCase()).toContain(`etag: ${etag ?? ''}`.toLowerCase());
  });

  it('answers the Idempotency-Key example again, replayed, without a second meeting', async () => {
    const [, first = '', again = ''] = out.split(/^--- (?:first|again|conditional)$/m);
    const bodyOf = (answer: string) =>
      answer
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n\n')
        .trim();
    expect(first).toMatch(/^HTTP\/1\.1 201/m);
    expect(first).not.toMatch(/idempotent-replayed/i);
    expect(again).toMatch(/^HTTP\/1\.1 201/m);
    expect(again).toMatch(/^idempotent-replayed: true/im);
    expect(bodyOf(again)).toBe(bodyOf(first));
    const made = JSON.parse(bodyOf(first)) as { id: string; title: string };
    expect(made.title).toBe('Roadmap review');
    expect(made.id).not.toBe(meetingId);
  });
});

/** The operations of a GraphQL block, each printed alone as the IDE sends the one it runs. */
function operations(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const block of codeBlocks(text).filter((b) => b.lang === 'graphql')) {
    for (const definition of parse(block.code).definitions) {
      const operation = definition as OperationDefinitionNode;
      found.set(operation.name?.value ?? '', print(operation));
    }
  }
  return found;
}

/** The JSON objects the text gives inline (`{ "...": ... }`), in order, as written. */
const inlineJson = (text: string): string[] =>
  [...text.matchAll(/`(\{ ".*?\})`/g)].map((match) => match[1] as string);

/** One of them with its placeholders (`<donald's id>`) filled in from `values`. */
function filled(json: string | undefined, values: Record<string, string>): Record<string, unknown> {
  return JSON.parse(
    (json ?? 'null').replace(/<([^>]+)>/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) {
        throw new Error(`the test has no value for <${name}>`);
      }
      return value;
    }),
  ) as Record<string, unknown>;
}

describe('the README tour on GraphQL, in the IDE', () => {
  let t: TestApp;
  const graphqlTour = section(TOUR, 'On GraphQL, in the IDE');
  const ops = operations(graphqlTour);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const run = async (name: string, variables: Record<string, unknown>, token?: string) => {
    const document = ops.get(name);
    if (!document) {
      throw new Error(`the tour has no operation ${name}`);
    }
    return t.gql.data(document, variables, token);
  };

  /** What the IDE's sign-in bar does: the login mutation, its access token kept. */
  const signIn = async (account: string) => {
    const { login } = await t.gql.data<{ login: { tokens: { accessToken: string } } }>(
      'mutation ($input: LoginInput!) { login(input: $input) { tokens { accessToken } } }',
      { input: { username: account, password: 'analytical' } },
    );
    return login.tokens.accessToken;
  };

  it('registers, creates the meeting, invites, and approves and declines as written', async () => {
    expect([...ops.keys()]).toEqual([
      'Register',
      'People',
      'CreateMeeting',
      'Invite',
      'Invitations',
      'Approve',
      'Decline',
    ]);
    const values: Record<string, string> = {};
    const given = inlineJson(graphqlTour);
    const step = (index: number) => filled(given[index], values);
    expect(given).toHaveLength(6);
    const people = [0, 1, 2].map(step);
    for (const person of people) {
      await run('Register', person);
    }
    expect(people.map((person) => person['account'])).toEqual(['barbara', 'donald', 'frances']);

    const barbara = await signIn('barbara');
    const { donald, frances } = (await run('People', {}, barbara)) as {
      donald: { id: string };
      frances: { id: string };
    };
    values["donald's id"] = donald.id;
    values["frances's id"] = frances.id;
    const created = (await run('CreateMeeting', step(3), barbara)) as {
      createMeeting: { meeting: { id: string; status: string } };
    };
    expect(created.createMeeting.meeting.status).toBe('PENDING');
    values["the meeting's id"] = created.createMeeting.meeting.id;
    await expect(run('Invite', step(4), barbara)).resolves.toEqual({
      addParticipant: { participant: { status: 'NEW' } },
    });

    const answer = step(5);
    expect(answer).toEqual({ meetingId: created.createMeeting.meeting.id });
    const seen = async (token: string) =>
      ((await run('Invitations', {}, token)) as { invitations: { nodes: unknown[] } }).invitations
        .nodes;
    const donaldToken = await signIn('donald');
    expect(await seen(donaldToken)).toEqual([
      { meeting: expect.objectContaining({ id: answer['meetingId'], title: 'Design review' }) },
    ]);
    await run('Approve', answer, donaldToken);
    const francesToken = await signIn('frances');
    expect(await seen(francesToken)).toHaveLength(1);
    const declined = (await run('Decline', answer, francesToken)) as {
      declineMeeting: { meeting: { status: string; participants: unknown[] } };
    };
    expect(declined.declineMeeting.meeting).toEqual({
      status: 'PENDING',
      participants: [
        { status: 'ACCEPTED', user: { account: 'barbara' } },
        { status: 'ACCEPTED', user: { account: 'donald' } },
        { status: 'DECLINED', user: { account: 'frances' } },
      ],
    });
  });
});
