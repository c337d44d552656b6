import { Migration } from '@mikro-orm/migrations';

/** The channel the database says on which tables a commit wrote (the answer cache hears it). */
const CHANNEL = 'tables_changed';

/**
 * Tables no answer is read from: who is alive, idempotency keys, callers' write positions, the
 * change log's horizon and the migrations' own. Written often (heartbeats every 2 s), they would
 * only add notices.
 */
const UNWATCHED = [
  'heartbeats',
  'idempotency_keys',
  'read_positions',
  'change_log_horizon',
  'mikro_orm_migrations',
];

/**
 * Every commit that writes a table says so, once per table and transaction (PostgreSQL folds a
 * transaction's identical notices into one), on the channel `tables_changed` with the table's
 * name: each instance's answer cache drops the answers read from it. A statement-level trigger on
 * each table of the public schema but those above; a table a later migration makes needs its own
 * (`watch_table_changes('<table>')`; a test lists the tables without one).
 */
export class Migration20261208000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function "tables_changed_notify"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('${CHANNEL}', tg_table_name);
        return null;
      end $$;`);
    this.addSql(`
      create or replace function "watch_table_changes"(target text) returns void
      language plpgsql as $$
      begin
        execute format('drop trigger if exists "tables_changed" on %I', target);
        execute format('create trigger "tables_changed" after insert or update or delete or '
          'truncate on %I for each statement execute function "tables_changed_notify"()', target);
      end $$;`);
    this.addSql(`
      select "watch_table_changes"(t."table_name") from "information_schema"."tables" t
      where t."table_schema" = 'public' and t."table_type" = 'BASE TABLE'
        and t."table_name" <> all (array[${UNWATCHED.map((name) => `'${name}'`).join(', ')}]);`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      do $$ declare t record; begin
        for t in select c."relname" from "pg_trigger" g join "pg_class" c on c."oid" = g."tgrelid"
          where g."tgname" = 'tables_changed' loop
          execute format('drop trigger "tables_changed" on %I', t."relname");
        end loop;
      end $$;`);
    this.addSql(`drop function if exists "watch_table_changes"(text);`);
    this.addSql(`drop function if exists "tables_changed_notify"();`);
  }
}
