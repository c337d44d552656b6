import { AnswerCache, observeStatement } from '../../src/platform/answer-cache/answer-cache';

/** Runs `statements` as one request's reads (as the ORM would send them) and keeps its answer. */
function read(cache: AnswerCache, key: string, body: string, statements: string[]): void {
  cache.record((recording) => {
    statements.forEach(observeStatement);
    recording.keepable = true;
    cache.keep(key, { text: body, etag: `"${body}"` }, recording);
  });
}

describe('the answer cache', () => {
  it('keeps an answer until a table it was read from is written, and only those', () => {
    const cache = new AnswerCache(1024 * 1024);
    cache.heard();
    read(cache, 'meeting', 'm1', ['select * from "meetings" m join "participants" p on 1=1']);
    read(cache, 'me', 'u1', ['select * from "users" u where u."id" = $1']);
    expect(cache.get('meeting')?.text).toBe('m1');
    cache.changed('participants');
    expect(cache.get('meeting')).toBeUndefined();
    expect(cache.get('me')?.text).toBe('u1');
  });

  it('does not keep an answer whose reading overlapped a write of what it read', () => {
    const cache = new AnswerCache(1024 * 1024);
    cache.heard();
    cache.record((recording) => {
      observeStatement('select * from "meetings"');
      // The write's notice arrives while the answer is being built (it may hold the old state).
      cache.changed('meetings');
      recording.keepable = true;
      cache.keep('meeting', { text: 'old', etag: '"old"' }, recording);
    });
    expect(cache.get('meeting')).toBeUndefined();
    // Another table's write does not spoil it.
    cache.record((recording) => {
      observeStatement('select * from "meetings"');
      cache.changed('follows');
      recording.keepable = true;
      cache.keep('meeting', { text: 'new', etag: '"new"' }, recording);
    });
    expect(cache.get('meeting')?.text).toBe('new');
  });

  it('drops what a request wrote as soon as it is done', async () => {
    const cache = new AnswerCache(1024 * 1024);
    cache.heard();
    read(cache, 'following', 'f0', ['select * from "follows" f']);
    await cache.run(async () => {
      observeStatement('insert into "follows" ("a", "b") values ($1, $2)');
    });
    expect(cache.get('following')).toBeUndefined();
  });

  it('keeps nothing that read the clock, nothing unmarked, and nothing while deaf', () => {
    const cache = new AnswerCache(1024 * 1024);
    read(cache, 'before', 'b', ['select 1 from "users"']);
    expect(cache.get('before')).toBeUndefined();
    cache.heard();
    read(cache, 'clock', 'c', ['select * from "meetings" where "starts_at" > now()']);
    expect(cache.get('clock')).toBeUndefined();
    cache.record((recording) => cache.keep('unmarked', { text: 'x', etag: '"x"' }, recording));
    expect(cache.get('unmarked')).toBeUndefined();
    read(cache, 'kept', 'k', ['select 1 from "users"']);
    expect(cache.get('kept')?.text).toBe('k');
    // The listener lost its connection: notices may be missed, so everything goes.
    cache.deaf();
    expect(cache.get('kept')).toBeUndefined();
    read(cache, 'kept', 'k', ['select 1 from "users"']);
    cache.heard();
    expect(cache.get('kept')).toBeUndefined();
  });

  it('holds at most its bound in bytes, the least recently used going first', () => {
    const cache = new AnswerCache(10_000);
    cache.heard();
    const body = 'x'.repeat(1_000);
    for (let i = 0; i < 10; i += 1) {
      read(cache, `k${i}`, body, ['select 1 from "users"']);
    }
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k9')?.text).toBe(body);
  });
});
