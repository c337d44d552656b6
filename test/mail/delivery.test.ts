import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { startTestApp } from '../helpers/test-app';
import { SmtpSink } from './smtp-sink';

/*
 * Delivery like webhooks (issue 40), against a real SMTP server: 4xx replies and network errors
 * are retried on MAIL_RETRY_SCHEDULE with the same Message-ID, a 5xx is given up, outcomes are
 * counted in the metrics; two instances on one database send each message once, and a restart
 * between attempts loses none.
 */

/** The value of a counter line of the metrics text, 0 when absent. */
function counter(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mail delivery', () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) {
      await close();
    }
  });
  const sinkOf = async (...args: Parameters<typeof SmtpSink.start>) => {
    const sink = await SmtpSink.start(...args);
    closing.push(() => sink.close());
    return sink;
  };
  const appOf = async (env: Record<string, string>, database?: TestDatabase) => {
    const t = await startTestApp(env, database ? { database: database.config } : {});
    closing.push(() => t.close());
    return t;
  };

  it('retries 451 answers with the same Message-ID until the server takes it, once, and counts each attempt', async () => {
    const sink = await sinkOf((n) => (n < 2 ? 451 : null));
    const t = await appOf({ SMTP_URL: sink.url, MAIL_RETRY_SCHEDULE: '0.3,0.3,0.3' });
    const user = await t.seed.user();
    const [message] = await sink.waitFor(user.email);
    expect(sink.tries).toBe(3);
    await sleep(1500);
    expect(sink.to(user.email)).toHaveLength(1);
    expect(message?.parsed.messageId).toMatch(/^<[0-9a-f-]{36}@localhost>$/);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(counter(metrics, 'mail_attempts_total', 'kind="verification",outcome="retry"')).toBe(2);
    expect(counter(metrics, 'mail_attempts_total', 'kind="verification",outcome="sent"')).toBe(1);
    expect(counter(metrics, 'mail_messages_made_total', 'kind="verification",mode="smtp"')).toBe(1);
  });

  it('gives a message up on a 5xx answer, without a retry', async () => {
    const sink = await sinkOf(() => 550);
    const t = await appOf({ SMTP_URL: sink.url, MAIL_RETRY_SCHEDULE: '0.2,0.2' });
    await t.seed.user();
    const deadline = Date.now() + 10_000;
    while (sink.tries === 0 && Date.now() < deadline) {
      await sleep(100);
    }
    await sleep(1500);
    expect(sink.tries).toBe(1);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(counter(metrics, 'mail_attempts_total', 'kind="verification",outcome="failed"')).toBe(1);
  });

  it('sends once when the SMTP server is down for a while and then back', async () => {
    const first = await SmtpSink.start();
    const port = first.port;
    await first.close();
    const t = await appOf({
      SMTP_URL: `smtp://mailer:mailer-password@127.0.0.1:${port}`,
      MAIL_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1',
    });
    const user = await t.seed.user();
    await sleep(3000);
    const sink = await sinkOf(() => null, port);
    const got = await sink.waitFor(user.email, 1, 20_000);
    await sleep(2500);
    expect(got).toHaveLength(1);
    expect(sink.to(user.email)).toHaveLength(1);
  });

  it('sends each message once with two instances on one database', async () => {
    const sink = await sinkOf();
    const database = await createTestDatabase();
    closing.push(() => database.drop());
    const env = { SMTP_URL: sink.url, MAIL_RETRY_SCHEDULE: '0.3' };
    const one = await appOf(env, database);
    await appOf(env, database);
    const users = [];
    for (let i = 0; i < 6; i += 1) {
      users.push(await one.seed.user());
    }
    for (const user of users) {
      await sink.waitFor(user.email);
    }
    await sleep(2000);
    for (const user of users) {
      expect(sink.to(user.email)).toHaveLength(1);
    }
    expect(sink.tries).toBe(6);
  });

  it('loses no message to a restart between attempts', async () => {
    const sink = await sinkOf((n) => (n === 0 ? 451 : null));
    const database = await createTestDatabase();
    closing.push(() => database.drop());
    const env = { SMTP_URL: sink.url, MAIL_RETRY_SCHEDULE: '2' };
    const before = await startTestApp(env, { database: database.config });
    const user = await before.seed.user();
    const deadline = Date.now() + 10_000;
    while (sink.tries === 0 && Date.now() < deadline) {
      await sleep(50);
    }
    // The first attempt was refused; the retry is due in about 2 s: the instance stops first.
    await before.instance.close();
    expect(sink.to(user.email)).toHaveLength(0);
    await appOf(env, database);
    const got = await sink.waitFor(user.email, 1, 20_000);
    await sleep(1500);
    expect(got).toHaveLength(1);
    expect(sink.tries).toBe(2);
  });
});
