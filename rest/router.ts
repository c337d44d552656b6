import express, { type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AuthContext as OperationContext, RequestInfo } from '../src/platform/auth/tokens';
import {
  argumentRuleFailures,
  besideTypeFailures,
  operationNeedsViewer,
  variablePathOf,
} from '../src/platform/graphql/argument-rules';
import { HttpRequestError, notFound, sendHttpError } from '../src/platform/http/http-errors';
import { type Idempotency, keepRawBody } from '../src/platform/idempotency/idempotency';
import { strongTag } from '../src/platform/http/conditional-get';
import { readAnswer, sendJson, sendRead } from '../src/platform/http/json-answer';
import { AnswerCache } from '../src/platform/answer-cache/answer-cache';
import {
  currentRequest,
  READ_AFTER_HEADER,
  runOperationOfKind,
} from '../src/platform/observability/request-tracking';
import { type FieldErrors, ValidationFailedError } from '../src/platform/shared/errors';
import { BODY_LIMIT_BYTES, readBody } from './body';
import { idempotentRoute } from './idempotent';
import { loadOperations, type PreparedOperation } from './operations';
import type { RouteSpec } from './route';
import { routeIndex } from './route-index';
import { routes as declaredRoutes } from './routes';
import { clientFieldPath } from './names';
import {
  type GatheredVariables,
  gatherVariables,
  planVariables,
  type RequestValues,
  type VariablePlan,
} from './wire';

export const REST_PREFIX = '/api/v1';

/** Static path segments are tried before parameters, so `/meeting/requests` is never an id. */
export function bySpecificity(a: RouteSpec, b: RouteSpec): number {
  const left = a.path.split('/');
  const right = b.path.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const leftParam = (left[i] ?? '').startsWith(':');
    const rightParam = (right[i] ?? '').startsWith(':');
    if (leftParam !== rightParam) {
      return leftParam ? 1 : -1;
    }
  }
  return 0;
}

// `verify` keeps a keyed request's body bytes for its Idempotency-Key fingerprint.
const bodyParsers: RequestHandler[] = [
  express.json({
    limit: BODY_LIMIT_BYTES,
    type: ['application/json', 'application/*+json'],
    verify: keepRawBody,
  }),
  express.urlencoded({
    limit: BODY_LIMIT_BYTES,
    extended: false,
    parameterLimit: 100,
    verify: keepRawBody,
  }),
];

/** The token endpoint answers unreadable bodies in the RFC 6749 shape too. */
const oauthBodyParsers: RequestHandler[] = bodyParsers.map(
  (parser): RequestHandler =>
    (req, res, next) =>
      parser(req, res, (error?: unknown) => {
        if (error) {
          sendHttpError(res, new HttpRequestError(400, 'MALFORMED_BODY'), 'oauth');
        } else {
          next();
        }
      }),
);

interface Executor {
  schema: GraphQLSchema;
  /** The context of one operation, as /graphql builds it (given by the app). */
  createContext: (request: RequestInfo) => Promise<OperationContext>;
  logger: Logger;
  operations: ReadonlyMap<string, PreparedOperation>;
  /** With read replicas: the write position a write answers with (`X-Read-After`). */
  positionAfterWrite?: (() => Promise<string | null>) | undefined;
  /** Whole answers to reads, kept until a write (RESPONSE_CACHE); null: every read runs. */
  answers: AnswerCache | null;
}

/**
 * Field failures keyed by GraphQL argument path (`participants.0.userId`, or `input.…` inside an
 * input object) → the variable that carried the value → the client's names.
 */
function byClientName(fields: FieldErrors, operation: PreparedOperation, route: RouteSpec) {
  const named: FieldErrors = {};
  for (const [path, reason] of Object.entries(fields)) {
    const inVariable = variablePathOf(operation.positions, path.split('.'));
    named[clientFieldPath(inVariable, route.renames)] = reason;
  }
  return named;
}

/** An operation's failure as the client should see it: field errors by the client's names. */
function clientFailure(error: unknown, operation: PreparedOperation, route: RouteSpec): unknown {
  const original = (error as { originalError?: unknown } | undefined)?.originalError ?? error;
  return original instanceof ValidationFailedError
    ? new ValidationFailedError(byClientName(original.fields, operation, route))
    : (error ?? new Error('operation answered no data'));
}

/**
 * The answer to variables that do not type-check, without executing: the caller is checked as
 * the operation's resolvers would (401 first), and the rules of the argument classes still judge
 * the fields that did type-check, so every bad field is reported at once. A field that failed its
 * type is reported for that alone, not for the rules its stand-in breaks.
 */
async function invalidVariables(
  executor: Executor,
  operation: PreparedOperation,
  gathered: Extract<GatheredVariables, { ok: false }>,
  context: OperationContext,
  route: RouteSpec,
): Promise<ValidationFailedError> {
  const rules = byClientName(
    await argumentRuleFailures(executor.schema, operation.definition, gathered.standIns, context),
    operation,
    route,
  );
  return new ValidationFailedError(besideTypeFailures(gathered.fields, rules));
}

function operationFor(
  route: RouteSpec,
  values: RequestValues,
  executor: Executor,
): PreparedOperation {
  const name = typeof route.operation === 'string' ? route.operation : route.operation(values);
  const operation = name ? executor.operations.get(name) : undefined;
  if (!operation) {
    // Only the token endpoint chooses its operation: by grant type.
    const grant = values.body['grant_type'];
    throw new HttpRequestError(
      400,
      'UNSUPPORTED_GRANT_TYPE',
      grant === undefined ? 'invalid_request' : 'unsupported_grant_type',
    );
  }
  return operation;
}

/** The value at `path` of an operation's data: the REST body. */
function valueAt(data: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (value, key) => (value as Record<string, unknown> | null | undefined)?.[key],
    data,
  );
}

const NO_BODY: Readonly<Record<string, unknown>> = Object.freeze({});

/** Names the request's route in its log line and metrics, before its body is read. */
function labelled(label: string): RequestHandler {
  return (_req, _res, next) => {
    const scope = currentRequest();
    if (scope) {
      scope.route = label;
    }
    next();
  };
}

/** The one generic handler: gather variables → execute in-process → answer the result or error. */
function handle(route: RouteSpec, executor: Executor): RequestHandler {
  const style = route.errorStyle ?? 'contract';
  // Each operation's variables are resolved once (types, client names), at its first request.
  const plans = new Map<PreparedOperation, VariablePlan>();
  const planFor = (operation: PreparedOperation): VariablePlan => {
    let plan = plans.get(operation);
    if (!plan) {
      plan = planVariables(executor.schema, operation, route.renames);
      plans.set(operation, plan);
    }
    return plan;
  };
  return async (req: Request, res: Response) => {
    try {
      const values: RequestValues = {
        path: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: route.body === 'none' ? NO_BODY : await readBody(req, route.body),
      };
      const context = await executor.createContext({
        authorization: req.headers.authorization,
        ip: req.ip ?? 'unknown',
      });
      const operation = operationFor(route, values, executor);
      const gathered = gatherVariables(planFor(operation), values);
      if (!gathered.ok) {
        throw await invalidVariables(executor, operation, gathered, context, route);
      }
      // The caller is checked here, once: by the resolvers' @Authorized.
      const kind = operation.definition.operation;
      const read = kind === 'query' && route.method === 'get';
      const { answers } = executor;
      // A read is answered from the cache when it can be: the caller (as the token's user reads
      // now) and the variables are its key.
      const key =
        answers && read
          ? AnswerCache.keyOf(
              'rest',
              route.path,
              JSON.stringify(context.auth),
              JSON.stringify(gathered.variables),
            )
          : null;
      const kept = key === null ? undefined : answers?.get(key);
      if (kept) {
        // A REST answer is kept with its tag (readAnswer's, below).
        sendRead(req, res, route.response.status, {
          text: kept.text,
          etag: kept.etag ?? strongTag(kept.text),
        });
        return;
      }
      const run = () => runOperationOfKind(kind, () => operation.run(context, gathered.variables));
      const { value: result, recording } = answers
        ? await answers.run(run)
        : { value: await run(), recording: null };
      if (result.errors?.[0] || !result.data) {
        throw clientFailure(result.errors?.[0], operation, route);
      }
      const position = kind === 'mutation' ? await executor.positionAfterWrite?.() : undefined;
      if (position) {
        res.set(READ_AFTER_HEADER, position);
      }
      if (style === 'oauth') {
        res.set('Cache-Control', 'no-store');
      }
      const { status, message } = route.response;
      const body = message !== undefined ? { message } : valueAt(result.data, operation.bodyPath);
      // A read answers with its ETag, and 304 to a client that holds it.
      const answer = read ? readAnswer(body) : undefined;
      if (answer) {
        if (key !== null && recording) {
          recording.keepable = true;
          answers?.keep(key, answer, recording);
        }
        sendRead(req, res, status, answer);
      } else {
        sendJson(res, status, body);
      }
    } catch (error) {
      sendHttpError(res, error, style, executor.logger);
    }
  };
}

/** A route's operation exists, and needs a caller exactly when the route is not public. */
function checkRoutes(routes: readonly RouteSpec[], executor: Executor): void {
  for (const route of routes) {
    // The token endpoint chooses its operation per request; it is public, as they are.
    if (typeof route.operation !== 'string') {
      continue;
    }
    const where = `REST route ${route.method.toUpperCase()} ${route.path}`;
    const operation = executor.operations.get(route.operation);
    if (!operation) {
      throw new Error(`${where}: no operation ${route.operation}`);
    }
    if (operationNeedsViewer(operation.definition) === Boolean(route.public)) {
      throw new Error(`${where}: public, yet ${operation.name} is @Authorized (or the reverse)`);
    }
  }
}

/** The REST facade: every declared route, each running its GraphQL operation in-process. */
export function restRouter(options: {
  schema: GraphQLSchema;
  createContext: (request: RequestInfo) => Promise<OperationContext>;
  logger: Logger;
  routes?: readonly RouteSpec[];
  /** Idempotency-Key on every POST route (none: the header is not read). */
  idempotency?: Idempotency;
  /** With read replicas: the write position a write answers with (`X-Read-After`). */
  positionAfterWrite?: (() => Promise<string | null>) | undefined;
  /** Whole answers to reads, kept until a write (RESPONSE_CACHE). */
  answers?: AnswerCache | null;
}): RequestHandler {
  const executor: Executor = {
    ...options,
    answers: options.answers ?? null,
    operations: loadOperations(options.schema),
  };
  const routes = [...(options.routes ?? declaredRoutes)].sort(bySpecificity);
  checkRoutes(routes, executor);
  const index = routeIndex(
    routes.map((route) => {
      const parsers =
        route.body === 'none' ? [] : route.errorStyle === 'oauth' ? oauthBodyParsers : bodyParsers;
      const label = `${REST_PREFIX}${route.path}`;
      const { idempotency } = options;
      const keyed =
        idempotency && route.method === 'post'
          ? [idempotentRoute(route, label, idempotency, options.logger)]
          : [];
      return {
        method: route.method,
        path: route.path,
        handlers: [labelled(label), ...parsers, ...keyed, handle(route, executor)],
      };
    }),
  );
  // Whatever no route takes under the prefix is not found (health and docs are mounted before).
  return (req, res, next) =>
    index(req, res, (error?: unknown) => (error ? next(error) : notFound(req, res, next)));
}
