import { currentRequest } from '../observability/request-scope';

/** Counts every SQL statement the ORM sends, in total and for the request in scope. */
export class QueryCounter {
  total = 0;

  /** The ORM's `onQuery` hook: counts the statement and sends it unchanged. */
  readonly record = (sql: string): string => {
    this.total += 1;
    const scope = currentRequest();
    if (scope) {
      scope.statements += 1;
    }
    return sql;
  };
}
