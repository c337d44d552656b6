import { currentRequest } from '../observability/request-scope';

/** Counts every SQL statement the ORM sends, in total and for the request in scope. */
export class QueryCounter {
  total = 0;

  record(): void {
    this.total += 1;
    const scope = currentRequest();
    if (scope) {
      scope.statements += 1;
    }
  }
}
