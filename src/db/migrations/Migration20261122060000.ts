import { Migration } from '@mikro-orm/migrations';

const VISIBLE = `u."is_active" and u."deleted_at" is null`;
const GRAMS_OF = (rows: string) =>
  `select g.gram, count(*)::int as "users" from ${rows} u, ` +
  `unnest("user_search_grams_of"(u."name", u."account", u."email")) as g(gram) ` +
  `where ${VISIBLE} group by g.gram`;

/**
 * How many visible users each two- and three-character text occurs in (lower-cased, within name,
 * account or e-mail), kept by statement triggers on users. A search for two or three characters
 * reads its total here instead of counting every match, which costs as much as the matches are
 * many (a two-character pattern cannot even use the trigram index).
 */
export class Migration20261122060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "user_search_grams" ("gram" text not null, "users" int not null, ` +
        `constraint "user_search_grams_pkey" primary key ("gram"));`,
    );
    this.addSql(
      `create function "user_search_grams_of"(name text, account text, email text) returns text[] ` +
        `language sql immutable parallel safe as $$ ` +
        `select coalesce(array_agg(distinct substr(t.v, i, n.n)), '{}') ` +
        `from unnest(array[lower(name), lower(account), lower(email)]) as t(v) ` +
        `cross join lateral generate_series(1, char_length(t.v)) as i ` +
        `cross join (values (2), (3)) as n(n) ` +
        `where i + n.n - 1 <= char_length(t.v) $$;`,
    );
    // Rows in gram order, so concurrent writers lock the same counters in the same order.
    this.addSql(
      `create function "user_search_grams_sync"() returns trigger language plpgsql as $$ begin ` +
        `if tg_op = 'INSERT' then ` +
        `insert into "user_search_grams" as c ("gram", "users") ${GRAMS_OF('"new_users"')} order by 1 ` +
        `on conflict ("gram") do update set "users" = c."users" + excluded."users"; ` +
        `elsif tg_op = 'DELETE' then ` +
        `update "user_search_grams" as c set "users" = c."users" - d."users" ` +
        `from (${GRAMS_OF('"old_users"')} order by 1) d where c."gram" = d.gram; ` +
        `else ` +
        `insert into "user_search_grams" as c ("gram", "users") ` +
        `select gram, sum("users")::int from (${GRAMS_OF('"new_users"')} union all ` +
        `select gram, -"users" from (${GRAMS_OF('"old_users"')}) o) d ` +
        `group by gram having sum("users") <> 0 order by 1 ` +
        `on conflict ("gram") do update set "users" = c."users" + excluded."users"; ` +
        `end if; return null; end $$;`,
    );
    this.addSql(
      `create trigger "users_search_grams_insert" after insert on "users" ` +
        `referencing new table as "new_users" for each statement ` +
        `execute function "user_search_grams_sync"();`,
    );
    this.addSql(
      `create trigger "users_search_grams_update" after update on "users" ` +
        `referencing old table as "old_users" new table as "new_users" for each statement ` +
        `execute function "user_search_grams_sync"();`,
    );
    this.addSql(
      `create trigger "users_search_grams_delete" after delete on "users" ` +
        `referencing old table as "old_users" for each statement ` +
        `execute function "user_search_grams_sync"();`,
    );
    this.addSql(`insert into "user_search_grams" ("gram", "users") ${GRAMS_OF('"users"')};`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "users_search_grams_delete" on "users";`);
    this.addSql(`drop trigger "users_search_grams_update" on "users";`);
    this.addSql(`drop trigger "users_search_grams_insert" on "users";`);
    this.addSql(`drop function "user_search_grams_sync"();`);
    this.addSql(`drop function "user_search_grams_of"(text, text, text);`);
    this.addSql(`drop table "user_search_grams";`);
  }
}
