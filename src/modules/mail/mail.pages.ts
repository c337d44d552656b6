import type { Response } from 'express';
import { htmlPage } from '../../platform/http/html';
import { currentRequest } from '../../platform/observability/request-tracking';

/** The request log names a link page's route, never its path or query (tokens are credentials). */
export function labelRoute(route: string): void {
  const scope = currentRequest();
  if (scope) {
    scope.route = route;
  }
}

/**
 * A page of a link sent by mail: never cached, and its address (a token) never sent on as a
 * referrer.
 */
export function sendPage(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
    .type('html')
    .send(htmlPage(title, body));
}
