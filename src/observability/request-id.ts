import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

// Printable, no spaces or quotes: safe in a header, a log line and a metric-free context.
const SANE_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * The id of a request: the one the client (or a proxy in front) sent when it is sane, else a
 * random UUID, unique across processes and cluster workers without any coordination.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}
