import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { currentRequest } from '../observability/request-tracking';
import { CostBudgetSpentError } from '../shared/errors';
import { budgetHeaders, type CostBudget } from './cost-budget';
import { formatError } from './format-error';

/**
 * How long a caller refused at once waits for its 429. Answered at once, a client that sends again
 * as soon as it is answered kept an instance busy with nothing but its refusals (the bench's
 * budget pass: 3,400 a second from 4 connections, another caller's p99 1.96x its own alone); held
 * a second, each of its connections costs a timer. A client that honours Retry-After never waits.
 */
const REFUSAL_DELAY_MS = 1_000;

/**
 * Before a GraphQL request's body is read: who pays for its operation (its bearer token's
 * subject, read without a statement, `user <id>`; else `ip <address>`, after trusted proxies),
 * kept in the request's scope for the cost plugin (operation-cost.ts); and a caller its budget
 * refuses at once (CostBudget.blocked) is answered 429 here, for next to nothing, a second later.
 */
export function costGate(
  budget: CostBudget,
  subjectOf: (authorization: string | undefined) => Promise<string | null>,
  logger: Logger,
): RequestHandler {
  const format = formatError(logger);
  const payerOf = async (req: Request): Promise<string> =>
    (await subjectOf(req.headers.authorization)) ?? `ip ${req.ip ?? 'unknown'}`;
  return async (req, res, next) => {
    const payer = await payerOf(req);
    const scope = currentRequest();
    if (scope) {
      scope.payer = payer;
    }
    const blocked = budget.blocked(payer);
    if (!blocked) {
      next();
      return;
    }
    // Shaped as Apollo shapes the refusal it would answer (format-error.ts).
    const refusal = new CostBudgetSpentError(null, blocked);
    const body = JSON.stringify({ errors: [format(refusal.toJSON(), refusal)] });
    res.statusCode = 429;
    for (const [name, value] of budgetHeaders(blocked, true)) {
      res.setHeader(name, value);
    }
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    setTimeout(() => res.end(body), REFUSAL_DELAY_MS).unref();
  };
}
