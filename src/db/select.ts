import { PostgreSqlKnexDialect } from '@mikro-orm/knex';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from 'knex';
import type { QueryConfig } from 'pg';
import type { Row } from './records';

/** How a statement is sent to a PostgreSQL server. */
export interface SelectOptions {
  /**
   * Keep the statement prepared on the connection (the default): parsed and planned once. Off for
   * statements whose best plan depends on the values, e.g. `ilike` patterns, which a generic plan
   * serves badly.
   */
  prepared?: boolean;
}

interface PgConnection {
  query(config: QueryConfig): Promise<{ rows: Row[] }>;
}

/** `?` placeholders, numbered for PostgreSQL, and a statement name, once per SQL text. */
const numbered = new Map<string, { text: string; name: string }>();

function forServer(sql: string): { text: string; name: string } {
  let statement = numbered.get(sql);
  if (!statement) {
    let index = 0;
    statement = { text: sql.replace(/\?/g, () => `$${++index}`), name: `s${numbered.size + 1}` };
    numbered.set(sql, statement);
  }
  return statement;
}

/**
 * A list of values as one PostgreSQL array literal, for `= any(?::uuid[])`: one statement text
 * whatever the list's length, so it stays prepared.
 */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

const isServer = new WeakMap<Knex, boolean>();

function onServer(knex: Knex): boolean {
  let server = isServer.get(knex);
  if (server === undefined) {
    // The embedded database has a dialect of its own; a server is reached through this one.
    server = knex.client.config.client === PostgreSqlKnexDialect;
    isServer.set(knex, server);
  }
  return server;
}

/**
 * Runs one SELECT (`?` placeholders; no `?` may appear in the SQL otherwise) and answers its rows.
 * On a PostgreSQL server, outside a transaction, it goes straight to a pooled `pg` connection as a
 * parameterised (by default prepared) statement: no query building, no values inlined into the
 * text, no planning on every call. Inside a transaction, or on the embedded database, it runs
 * through the ORM's connection. Counted like the ORM's own statements either way.
 */
export async function selectRows(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  options: SelectOptions = {},
): Promise<Row[]> {
  const connection = em.getConnection();
  const transaction = em.getTransactionContext();
  const knex = connection.getKnex();
  if (transaction || !onServer(knex)) {
    return connection.execute<Row[]>(sql, [...params], 'all', transaction);
  }
  em.config.get('onQuery')(sql, [...params]);
  const { text, name } = forServer(sql);
  try {
    const client = (await knex.client.acquireConnection()) as PgConnection;
    try {
      const query: QueryConfig = { text, values: [...params] };
      if (options.prepared ?? true) {
        query.name = name;
      }
      return (await client.query(query)).rows;
    } finally {
      knex.client.releaseConnection(client);
    }
  } catch (error) {
    // The errors the ORM would have raised, classified the same way (a lost database: typed, 503).
    throw em.getDriver().convertException(error as Error);
  }
}
