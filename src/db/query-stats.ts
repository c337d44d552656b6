import { AsyncLocalStorage } from 'node:async_hooks';

/** SQL statements sent while one request was being served. */
export interface RequestQueryStats {
  statements: number;
}

const requestScope = new AsyncLocalStorage<RequestQueryStats>();

/** Counts every SQL statement the ORM sends, in total and for the request in scope. */
export class QueryCounter {
  total = 0;

  record(): void {
    this.total += 1;
    const scope = requestScope.getStore();
    if (scope) {
      scope.statements += 1;
    }
  }

  /** Runs `fn` with a fresh per-request tally, which it returns to the caller as it goes. */
  static withScope<T>(fn: (stats: RequestQueryStats) => T): T {
    const stats: RequestQueryStats = { statements: 0 };
    return requestScope.run(stats, () => fn(stats));
  }
}
