import type { PGliteInterface, Results } from '@electric-sql/pglite';

/** The part of a Knex query object the PGlite dialect reads and writes. */
interface KnexQuery {
  sql?: string;
  bindings?: unknown[];
  method?: string;
  response?: Results | Results[];
}

type QueryMethod = (connection: PGliteInterface, query: KnexQuery) => Promise<KnexQuery>;

/**
 * Whether SQL text holds more than one statement. Semicolons inside string literals, quoted
 * identifiers and comments do not count.
 */
export function hasSeveralStatements(sql: string): boolean {
  let quote: "'" | '"' | null = null;
  let ended = false;
  for (let i = 0; i < sql.length; i += 1) {
    const c = sql[i];
    if (quote) {
      if (c === quote) {
        if (sql[i + 1] === quote) {
          i += 1;
        } else {
          quote = null;
        }
      }
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      continue;
    }
    if (c === "'" || c === '"') {
      if (ended) {
        return true;
      }
      quote = c;
    } else if (c === ';') {
      ended = true;
    } else if (ended && c !== undefined && !/\s/.test(c)) {
      return true;
    }
  }
  return false;
}

/**
 * The PGlite Knex dialect sends any raw query containing a `;` through PGlite's multi-statement
 * `exec`, which drops the result shape; MikroORM inlines parameters, so a value such as
 * `'a;b'` did that. Single statements go through `query`, as on a PostgreSQL server.
 */
export function routeSingleStatementsThroughQuery(dialect: { prototype: object }): void {
  const prototype = dialect.prototype as { _query: QueryMethod };
  const multiStatement = prototype._query;
  prototype._query = async function (this: unknown, connection, query) {
    if (query.sql && !hasSeveralStatements(query.sql)) {
      query.response = await connection.query(query.sql, query.bindings ?? []);
      return query;
    }
    return multiStatement.call(this, connection, query);
  };
}
