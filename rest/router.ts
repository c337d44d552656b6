import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { execute, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { type AppDependencies, createContext } from '../src/context';
import { notFound, sendError } from '../src/http/http-errors';
import { currentRequest } from '../src/observability/request-scope';
import { isDatabaseUnavailable } from '../src/shared/db-errors';
import { BODY_LIMIT_BYTES, BodyError, readBody } from './body';
import { sendGraphQLError, sendUnauthenticated, sendValidationErrors } from './http-errors';
import { type OAuthErrorCode, sendOAuthError, sendOAuthGraphQLError } from './oauth-errors';
import { loadOperations, type PreparedOperation } from './operations';
import type { RouteSpec } from './route';
import { routes as declaredRoutes } from './routes';
import { clientFieldPath } from './names';
import { gatherVariables, type RequestValues } from './wire-input';

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

const bodyParsers: RequestHandler[] = [
  express.json({ limit: BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] }),
  express.urlencoded({ limit: BODY_LIMIT_BYTES, extended: false, parameterLimit: 100 }),
];

/** The token endpoint answers unreadable bodies in the RFC 6749 shape too. */
const oauthBodyParsers: RequestHandler[] = bodyParsers.map(
  (parser): RequestHandler =>
    (req, res, next) =>
      parser(req, res, (error?: unknown) => {
        if (error) {
          sendOAuthError(res, 'invalid_request');
        } else {
          next();
        }
      }),
);

interface Executor {
  schema: GraphQLSchema;
  deps: AppDependencies;
  logger: Logger;
  operations: ReadonlyMap<string, PreparedOperation>;
}

/** Field errors (client names) of a dry run's BAD_USER_INPUT error, if that is what it was. */
function ruleFailures(
  error: GraphQLError | undefined,
  renames: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const fields = error?.extensions?.['fields'];
  if (error?.extensions?.['code'] !== 'BAD_USER_INPUT' || !fields || typeof fields !== 'object') {
    return {};
  }
  return Object.fromEntries(
    Object.entries(fields as Record<string, string>).map(([path, reason]) => [
      clientFieldPath(path.split('.'), renames),
      reason,
    ]),
  );
}

/** Drops the rule failures of stand-in values: those at or inside a field that failed its type. */
function fieldsBeside(
  ruleFields: Record<string, string>,
  typeFields: Readonly<Record<string, string>>,
): Record<string, string> {
  const bad = Object.keys(typeFields);
  return Object.fromEntries(
    Object.entries(ruleFields).filter(
      ([path]) => !bad.some((typed) => path === typed || path.startsWith(`${typed}.`)),
    ),
  );
}

function operationFor(
  route: RouteSpec,
  values: RequestValues,
  executor: Executor,
): PreparedOperation | null {
  const name = typeof route.operation === 'string' ? route.operation : route.operation(values);
  return name ? (executor.operations.get(name) ?? null) : null;
}

/** A failure that is not the operation's own answer: RFC 6749 on the token route, else the contract's. */
function sendRouteFailure(
  res: Response,
  route: RouteSpec,
  oauth: OAuthErrorCode,
  contract: { status: number; code: string },
): void {
  if (route.errorStyle === 'oauth') {
    sendOAuthError(res, oauth);
  } else {
    sendError(res, contract.status, contract.code);
  }
}

const UNAVAILABLE = { status: 503, code: 'SERVICE_UNAVAILABLE' };

function sendFailure(res: Response, route: RouteSpec, error: GraphQLError, logger: Logger): void {
  if (error.extensions?.['code'] === undefined && error.originalError) {
    if (isDatabaseUnavailable(error.originalError)) {
      logger.warn({ err: error.originalError }, 'database unavailable');
      sendRouteFailure(res, route, 'temporarily_unavailable', UNAVAILABLE);
      return;
    }
    logger.error({ err: error.originalError ?? error }, 'unexpected error in REST operation');
  }
  if (route.errorStyle === 'oauth') {
    sendOAuthGraphQLError(res, error);
  } else {
    sendGraphQLError(res, error, route.renames);
  }
}

/** The one generic handler: gather variables → execute in-process → answer the result or error. */
function handle(route: RouteSpec, executor: Executor): RequestHandler {
  const label = `${REST_PREFIX}${route.path}`;
  return async (req: Request, res: Response) => {
    const scope = currentRequest();
    if (scope) {
      scope.route = label;
    }
    try {
      const body = await readBody(req, route.body);
      const values: RequestValues = {
        path: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body,
      };
      const context = await createContext(executor.deps, {
        authorization: req.headers.authorization,
        ip: req.ip ?? 'unknown',
      });
      if (!route.public && context.auth.failure) {
        sendUnauthenticated(res, context.auth.failure);
        return;
      }
      const operation = operationFor(route, values, executor);
      if (!operation) {
        sendOAuthError(
          res,
          body['grant_type'] === undefined ? 'invalid_request' : 'unsupported_grant_type',
        );
        return;
      }
      const gathered = gatherVariables(executor.schema, operation, values, route.renames);
      if (!gathered.ok) {
        if (route.errorStyle === 'oauth') {
          sendOAuthError(res, 'invalid_request');
          return;
        }
        // The rules below the types still judge the fields that did type-check: report them all.
        const dryRun = await execute({
          schema: executor.schema,
          document: operation.document,
          variableValues: gathered.standIns,
          contextValue: { ...context, validateOnly: true },
        });
        sendValidationErrors(res, {
          ...fieldsBeside(ruleFailures(dryRun.errors?.[0], route.renames), gathered.fields),
          ...gathered.fields,
        });
        return;
      }
      const result = await operation.run(context, gathered.variables);
      const firstError = result.errors?.[0];
      if (firstError || !result.data) {
        sendFailure(res, route, firstError as GraphQLError, executor.logger);
        return;
      }
      if (route.errorStyle === 'oauth') {
        res.set('Cache-Control', 'no-store');
      }
      const { status, message } = route.response;
      if (message !== undefined) {
        res.status(status).json({ message });
      } else {
        res.status(status).json(Object.values(result.data)[0]);
      }
    } catch (error) {
      if (error instanceof BodyError) {
        sendRouteFailure(res, route, 'invalid_request', error);
      } else if (isDatabaseUnavailable(error)) {
        executor.logger.warn({ err: error }, 'database unavailable');
        sendRouteFailure(res, route, 'temporarily_unavailable', UNAVAILABLE);
      } else {
        executor.logger.error({ err: error }, 'unexpected error in REST route');
        sendRouteFailure(res, route, 'server_error', { status: 500, code: 'INTERNAL_ERROR' });
      }
    }
  };
}

/** The REST facade: every declared route, each running its GraphQL operation in-process. */
export function restRouter(options: {
  schema: GraphQLSchema;
  deps: AppDependencies;
  logger: Logger;
  routes?: readonly RouteSpec[];
}): Router {
  const executor: Executor = { ...options, operations: loadOperations(options.schema) };
  const routes = [...(options.routes ?? declaredRoutes)].sort(bySpecificity);
  for (const route of routes) {
    if (typeof route.operation === 'string' && !executor.operations.has(route.operation)) {
      throw new Error(
        `REST route ${route.method.toUpperCase()} ${route.path}: no operation ${route.operation}`,
      );
    }
  }
  const router = Router();
  for (const route of routes) {
    const parsers =
      route.body === 'none' ? [] : route.errorStyle === 'oauth' ? oauthBodyParsers : bodyParsers;
    router[route.method](route.path, ...parsers, handle(route, executor));
  }
  router.use(notFound);
  return router;
}
