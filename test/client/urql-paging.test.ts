import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { parse } from 'graphql';
import { Meeting } from '../../src/modules/meeting/meeting.entity';
import type { SeededUser } from '../helpers/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

const documents = parse(readFileSync(join(__dirname, 'meetings.graphql'), 'utf8'));
const only = (name: string) => ({
  ...documents,
  definitions: documents.definitions.filter(
    (definition) => 'name' in definition && definition.name?.value === name,
  ),
});
const OWN_MEETINGS = only('OwnMeetings');
const NEW_MEETING = only('NewMeeting');

interface OwnMeetings {
  meetings: {
    totalCount: number;
    edges: Array<{ cursor: string; node: { id: string; title: string; startTime: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/**
 * A real GraphQL client, as a rich client would use one: urql with its normalised cache, whose
 * relayPagination merges every slice fetched of `meetings` into one list (Apollo's fetchMore with
 * relayStylePagination does the same), over HTTP against the running service.
 */
describe('a GraphQL client library paging through a connection', () => {
  let t: TestApp;
  let owner: SeededUser;
  let guest: SeededUser;
  let client: Client;

  beforeAll(async () => {
    t = await startTestApp();
    [owner, guest] = (await t.seed.users(2)) as [SeededUser, SeededUser];
    client = new Client({
      url: `${t.url}/graphql`,
      exchanges: [
        cacheExchange({ resolvers: { Query: { meetings: relayPagination() } } }),
        fetchExchange,
      ],
      fetchOptions: () => ({ headers: { authorization: `Bearer ${owner.token}` } }),
      preferGetMethod: false,
    });
  });
  afterAll(() => t.close());

  /** Creates one of the owner's meetings through the client, starting `hours` from now. */
  async function create(hours: number, title: string): Promise<string> {
    const result = await client
      .mutation<{ createMeeting: { meeting: { id: string } } }>(NEW_MEETING, {
        input: {
          meeting: { title, startTime: inHours(hours), location: 'Room 7, HQ' },
          participants: [{ userId: guest.id }],
        },
      })
      .toPromise();
    expect(result.error).toBeUndefined();
    return result.data?.createMeeting.meeting.id ?? '';
  }

  /** The owner's meetings in the database, by start time: what a full walk must show. */
  async function stored(): Promise<string[]> {
    const em = t.instance.database.orm.em.fork();
    const rows = await em.find(
      Meeting,
      { ownerId: owner.id },
      { orderBy: { startTime: 'asc', id: 'asc' } },
    );
    return rows.map((row) => row.id);
  }

  it('pages forward with the cache merging slices, with meetings added between pages', async () => {
    for (let i = 0; i < 8; i += 1) {
      await create(10 + i * 10, `Planning round ${i}`);
    }
    const behind: string[] = [];
    let after: string | null = null;
    let merged: OwnMeetings['meetings'] | undefined;
    let pages = 0;
    do {
      const result = await client.query<OwnMeetings>(OWN_MEETINGS, { first: 3, after }).toPromise();
      expect(result.error).toBeUndefined();
      merged = result.data?.meetings;
      pages += 1;
      after = merged?.pageInfo.endCursor ?? null;
      // Between pages: one meeting after everything read so far, one before the cursor.
      if (merged?.pageInfo.hasNextPage && pages <= 3) {
        await create(1000 + pages, `Added later ${pages}`);
        behind.push(await create(1 + pages / 10, `Added early ${pages}`));
      }
    } while (merged?.pageInfo.hasNextPage && pages < 20);

    const walked = (merged?.edges ?? []).map((edge) => edge.node.id);
    // The cache answered every slice as one list: no duplicates, in start order.
    expect(new Set(walked).size).toBe(walked.length);
    const starts = (merged?.edges ?? []).map((edge) => Date.parse(edge.node.startTime));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // No gaps: every stored meeting is there but those added before the cursor had passed.
    const expected = (await stored()).filter((id) => !behind.includes(id));
    expect(walked).toEqual(expected);
    expect(walked).toHaveLength(8 + 3);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(merged?.totalCount).toBe((await stored()).length);
  });
});
