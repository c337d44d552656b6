import { useTestApp } from '../helpers/use-test-app';

/**
 * Every table an answer may be read from says when a commit writes it (the trigger
 * `tables_changed`, migration 20261208000000): the answer cache drops what was read from it. A
 * table a new migration makes needs one too (`select watch_table_changes('<table>')`).
 */
describe('the tables_changed notices', () => {
  const t = useTestApp();
  const sql = <T>(text: string, params: unknown[] = []) =>
    t.instance.database.orm.em.fork().getConnection().execute<T[]>(text, params);

  it('are sent by every table of the public schema but those no answer reads', async () => {
    const unwatched = await sql<{ table_name: string }>(
      `select t."table_name" from "information_schema"."tables" t ` +
        `where t."table_schema" = 'public' and t."table_type" = 'BASE TABLE' and not exists ` +
        `(select 1 from "pg_trigger" g where g."tgrelid" = ('"' || t."table_name" || '"')::regclass ` +
        `and g."tgname" = 'tables_changed') order by 1`,
    );
    expect(unwatched.map((row) => row.table_name)).toEqual([
      'change_log_horizon',
      'heartbeats',
      'idempotency_keys',
      'mikro_orm_migrations',
      'read_positions',
    ]);
  });

  it("name the table a commit wrote, each once a transaction, on the channel 'tables_changed'", async () => {
    const { Client } = await import('pg');
    const listener = new Client({ connectionString: t.instance.database.url });
    await listener.connect();
    try {
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      await listener.query('listen tables_changed');
      const [a, b, c] = await t.seed.users(3);
      // Notices come in commit order: once this one is heard, the seed's have been.
      await sql(`select pg_notify('tables_changed', 'marker')`);
      for (let tries = 0; tries < 100 && !heard.includes('marker'); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      heard.length = 0;
      const writer = new Client({ connectionString: t.instance.database.url });
      await writer.connect();
      try {
        await writer.query('begin');
        // Two statements on a table no background work writes: one notice.
        const follow =
          'insert into "follows" ("id", "created_at", "updated_at", "follower_id", ' +
          '"following_id") values (gen_random_uuid(), now(), now(), $1, $2)';
        await writer.query(follow, [a?.id, b?.id]);
        await writer.query(follow, [a?.id, c?.id]);
        await writer.query('commit');
      } finally {
        await writer.end();
      }
      for (let tries = 0; tries < 100 && heard.length === 0; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Background work (mail for the new users) may write other tables meanwhile.
      expect(heard.filter((table) => table === 'follows')).toEqual(['follows']);
    } finally {
      await listener.end();
    }
  });
});
