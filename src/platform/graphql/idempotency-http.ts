import type { RequestHandler, Response } from 'express';
import { GraphQLError, type OperationDefinitionNode, parse } from 'graphql';
import type { Logger } from 'pino';
import { fingerprintOf, type Idempotency, keepsStatus, sentKey } from '../idempotency/idempotency';
import { currentRequest } from '../observability/request-tracking';
import { IdempotencyKeyError } from '../shared/errors';
import { GRAPHQL_LIMITS } from './armor';
import { formatError } from './format-error';
import { acceptsOnlyJson } from './http-status';
import { apqHashOf, type TrustedDocuments } from './trusted-documents';

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/** Error codes of an answer that reflect no outcome: the key is let go and the retry runs again. */
const PASSING_CODES = new Set([
  'UNAUTHENTICATED',
  'TOO_MANY_REQUESTS',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_SERVER_ERROR',
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the operation a document and name select is a mutation (false when it does not parse). */
function isMutation(text: string, operationName: unknown): boolean {
  let operations: OperationDefinitionNode[];
  try {
    operations = parse(text, {
      noLocation: true,
      maxTokens: GRAPHQL_LIMITS.maxTokens,
    }).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  } catch {
    // Apollo answers the document's error; there is nothing to key.
    return false;
  }
  const chosen =
    typeof operationName === 'string' && operationName !== ''
      ? operations.find((operation) => operation.name?.value === operationName)
      : operations.length === 1
        ? operations[0]
        : undefined;
  return chosen?.operation === 'mutation';
}

/** An answer is kept unless its status or one of its errors says the retry may fare otherwise. */
function keepsAnswer(status: number, body: Buffer): boolean {
  if (!keepsStatus(status)) {
    return false;
  }
  try {
    const errors = (JSON.parse(body.toString()) as { errors?: unknown }).errors;
    return !(
      Array.isArray(errors) &&
      errors.some((error: { extensions?: { code?: unknown } } | null) =>
        PASSING_CODES.has(String(error?.extensions?.code)),
      )
    );
  } catch {
    return false;
  }
}

/**
 * Idempotency-Key on /graphql (after its JSON parser): a POST whose operation is a mutation is
 * keyed; a query, a GET, or a request without the header passes untouched (without the header,
 * nothing is parsed). Two requests are the same one when their query text, operation name,
 * variables and persisted-document hash are. A document sent only by id is keyed when the
 * trusted documents know its text. Refusals are request errors, shaped as Apollo shapes them:
 * `BAD_USER_INPUT` (`IDEMPOTENCY_KEY_INVALID` 400, `IDEMPOTENCY_KEY_REUSED` 422) or `CONFLICT`
 * (`IDEMPOTENCY_KEY_IN_USE` 409); as every request error here, 200 to a client that accepts
 * only `application/json`.
 */
export function graphqlIdempotency(
  idempotency: Idempotency,
  logger: Logger,
  trusted: TrustedDocuments | null,
  route: string,
): RequestHandler {
  const format = formatError(logger);
  return (req, res, next) => {
    const body: unknown = req.body;
    if (req.method !== 'POST' || sentKey(req).kind === 'none' || !isRecord(body)) {
      next();
      return;
    }
    const hash = apqHashOf(body['extensions']);
    const text =
      typeof body['query'] === 'string'
        ? body['query']
        : hash !== undefined
          ? trusted?.textOf(hash)
          : undefined;
    if (text === undefined || !isMutation(text, body['operationName'])) {
      next();
      return;
    }
    const scope = currentRequest();
    if (scope) {
      // Named for its log line and metrics even when answered here (Apollo names it otherwise).
      scope.route = route;
    }
    const fail = (response: Response, error: unknown): void => {
      const typed =
        error instanceof GraphQLError
          ? error
          : new GraphQLError('failed', { originalError: error as Error });
      const formatted = format(typed.toJSON(), error);
      const http = (typed.extensions['http'] as { status?: number } | undefined)?.status ?? 500;
      const accept = req.headers.accept;
      const onlyJson = acceptsOnlyJson(accept);
      response
        .status(onlyJson && http < 500 ? 200 : http)
        .type(!onlyJson && accept?.includes(GRAPHQL_RESPONSE_TYPE) ? GRAPHQL_RESPONSE_TYPE : 'json')
        .send(JSON.stringify({ errors: [formatted] }));
    };
    const sent = sentKey(req);
    if (sent.kind !== 'key') {
      fail(res, new IdempotencyKeyError('IDEMPOTENCY_KEY_INVALID'));
      return;
    }
    const fingerprint = fingerprintOf([
      JSON.stringify([
        body['query'] ?? null,
        body['operationName'] ?? null,
        body['variables'] ?? null,
        hash ?? null,
      ]),
    ]);
    idempotency
      .serve(
        req,
        res,
        { key: sent.key, route: `POST ${route}`, fingerprint, keeps: keepsAnswer, fail },
        next,
      )
      .catch(next);
  };
}
