import type { GraphQLSchema } from 'graphql';
import { HEALTH_PATH } from '../src/platform/http/health.routes';
import { type ClientInput, operationInputs } from './openapi-inputs';
import {
  responseRef,
  responsesOf,
  schemaRef,
  sharedHeaders,
  sharedParameters,
  sharedResponses,
} from './openapi-responses';
import { responseSchemas } from './openapi-records';
import { contractSchemas, type JsonObject } from './openapi-schemas';
import { bodyFields, loadOperations, type PreparedOperation } from './operations';
import type { RouteSpec } from './route';
import { routes as declaredRoutes } from './routes';

/** One operation of the document (OpenAPI 3.1 Operation Object). */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters?: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, JsonObject>;
}

/** The OpenAPI 3.1 document of the REST facade. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Partial<Record<'get' | 'post', OpenApiOperation>>>;
  components: {
    schemas: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    parameters: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}

/**
 * Routes whose operation is chosen from the request (a function in the table): the choices, so
 * the body can still be derived from the operations' variables.
 */
const dispatched: Readonly<
  Record<
    string,
    {
      field: string;
      description: string;
      choices: ReadonlyArray<{ value: string; operation: string; title: string; legacy?: true }>;
    }
  >
> = {
  'post /auth/token': {
    field: 'grant_type',
    description:
      'The OAuth 2.0 token endpoint (RFC 6749): `grant_type=password` with `username` (e-mail ' +
      'or account) and `password`, or `grant_type=refresh_token` with `refresh_token`. Legacy ' +
      'clients may send `{"refresh_token": ...}` without `grant_type`. Errors use the RFC 6749 ' +
      '§5.2 shape.',
    choices: [
      { value: 'password', operation: 'Login', title: 'Password grant' },
      { value: 'refresh_token', operation: 'RefreshToken', title: 'Refresh grant', legacy: true },
    ],
  },
};

/** The health probes: plain handlers (src/platform/http/health.routes.ts), not table routes. */
const healthProbes: ReadonlyArray<{
  path: string;
  operationId: string;
  summary: string;
  responses: Record<string, JsonObject>;
}> = [
  {
    path: `${HEALTH_PATH}/liveness`,
    operationId: 'Liveness',
    summary: 'Liveness: the process answers',
    responses: { 204: { description: 'The process is alive.' } },
  },
  {
    path: `${HEALTH_PATH}/readiness`,
    operationId: 'Readiness',
    summary: 'Readiness: the database answers too',
    responses: {
      204: { description: 'Ready to serve.' },
      503: responseRef('ServiceUnavailable'),
    },
  },
];

const tags = [
  { name: 'auth', description: 'Registration, sign-in and OAuth 2.0 tokens.' },
  { name: 'user', description: 'The current user, user profiles and search.' },
  { name: 'follow', description: 'Who follows whom.' },
  { name: 'meeting', description: 'Meetings, their participants and invitations.' },
  { name: 'health', description: 'Probes for load balancers and orchestrators.' },
];

/** `/meeting/:meeting_id` → `/meeting/{meeting_id}`. */
export const openApiPath = (expressPath: string): string =>
  expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const pathParams = (expressPath: string): string[] =>
  [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] as string);

const pascal = (segments: readonly string[]): string =>
  segments
    .map((s) => s.replace(/(^|[_-])([a-z])/g, (_, __, c: string) => c.toUpperCase()))
    .join('');

const staticSegments = (path: string): string[] =>
  path.split('/').filter((s) => s !== '' && !s.startsWith(':'));

/** Lifts a schema's description to the parameter, where documentation tools show it. */
function parameter(input: ClientInput, where: 'path' | 'query'): JsonObject {
  const { description, ...schema } = input.schema;
  return {
    name: input.name,
    in: where,
    required: where === 'path' || input.required,
    ...(typeof description === 'string' ? { description } : {}),
    schema,
  };
}

function objectSchema(inputs: readonly ClientInput[], extra: JsonObject = {}): JsonObject {
  const required = inputs.filter((input) => input.required).map((input) => input.name);
  return {
    type: 'object',
    ...extra,
    properties: Object.fromEntries(inputs.map((input) => [input.name, input.schema])),
    ...(required.length > 0 ? { required } : {}),
  };
}

interface Builder {
  schema: GraphQLSchema;
  operations: ReadonlyMap<string, PreparedOperation>;
  bodies: Record<string, JsonObject>;
}

function operationNamed(builder: Builder, name: string): PreparedOperation {
  const operation = builder.operations.get(name);
  if (!operation) {
    throw new Error(`OpenAPI: no operation ${name} in rest/operations`);
  }
  return operation;
}

/** The root field's description in the schema: what the operation does. */
const describeOperation = (builder: Builder, operation: PreparedOperation): string | undefined =>
  bodyFields(builder.schema, operation.definition)[0]?.field.description ?? undefined;

/** The choices of a route that picks its operation from the request. */
function dispatchOf(route: RouteSpec): (typeof dispatched)[string] {
  const dispatch = dispatched[`${route.method} ${route.path}`];
  if (!dispatch) {
    throw new Error(
      `OpenAPI: route ${route.method} ${route.path} chooses its operation; declare its choices`,
    );
  }
  return dispatch;
}

/** The operations a route may run: its own, or the choices of its dispatch. */
const operationsOf = (route: RouteSpec): string[] =>
  typeof route.operation === 'string'
    ? [route.operation]
    : dispatchOf(route).choices.map((choice) => choice.operation);

/** Path and query parameters, and the body schema, from the operation's variables. */
function inputsOf(builder: Builder, route: RouteSpec, operationId: string) {
  const params = pathParams(route.path);
  if (typeof route.operation !== 'string') {
    const dispatch = dispatchOf(route);
    const variants = dispatch.choices.map((choice) => {
      const inputs = operationInputs(builder.schema, operationNamed(builder, choice.operation), {
        renames: route.renames,
        nullable: false,
      });
      const field: ClientInput = {
        name: dispatch.field,
        required: !choice.legacy,
        schema: { type: 'string', enum: [choice.value] },
      };
      return { schema: objectSchema([field, ...inputs], { title: choice.title }), inputs };
    });
    builder.bodies[`${operationId}Body`] = { oneOf: variants.map((variant) => variant.schema) };
    return {
      path: [],
      query: [],
      body: true,
      fields: variants.flatMap((variant) => variant.inputs),
    };
  }
  const operation = operationNamed(builder, route.operation);
  const inputs = operationInputs(builder.schema, operation, {
    renames: route.renames,
    // Only a JSON body can carry `null`; path and query values are text.
    nullable: route.body !== 'none',
  });
  const path = params.map(
    (name): ClientInput =>
      inputs.find((input) => input.name === name) ?? {
        name,
        required: true,
        schema: { type: 'string', ...(name.endsWith('_id') ? { format: 'uuid' } : {}) },
      },
  );
  const rest = inputs.filter((input) => !params.includes(input.name));
  if (route.body === 'none') {
    return { path, query: rest, body: false, fields: [...path, ...rest] };
  }
  if (rest.length === 0) {
    return { path, query: [], body: false, fields: path };
  }
  builder.bodies[`${operationId}Body`] = objectSchema(rest);
  return { path, query: [], body: true, fields: [...path, ...rest] };
}

const bodyMediaTypes = {
  none: [],
  json: ['application/json'],
  form: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
} as const;

/** Unique, stable ids: the operation's name, or for an alias the name + its own segments. */
function operationIds(routes: readonly RouteSpec[]): string[] {
  const firstPath = new Map<string, string>();
  const taken = new Set<string>();
  return routes.map((route) => {
    let id: string;
    if (typeof route.operation !== 'string') {
      id = pascal(staticSegments(route.path));
    } else if (!firstPath.has(route.operation)) {
      firstPath.set(route.operation, route.path);
      id = route.operation;
    } else {
      const original = staticSegments(firstPath.get(route.operation) as string);
      const own = staticSegments(route.path).filter((segment) => !original.includes(segment));
      id = `${route.operation}${pascal(own)}Alias`;
    }
    let unique = id;
    for (let n = 2; taken.has(unique); n += 1) {
      unique = `${id}${n}`;
    }
    taken.add(unique);
    return unique;
  });
}

/** What the document says of the API as a whole. */
const API_INFO: OpenApiDocument['info'] = {
  title: 'Meeting Coordination Service',
  version: '1.0.0',
  description:
    'The REST interface of the meeting coordination service: users, follows, meetings, ' +
    'participants and invitations. Fields are snake_case and always present (an empty ' +
    'optional is `null`). Every endpoint but registration, sign-in, the token endpoint ' +
    'and the health probes needs `Authorization: Bearer <access token>`. A failure is ' +
    'answered with `{"errors": "<CODE>"}`, invalid input with 422 and ' +
    '`{"errors": {"<field>": "VALIDATION_<FIELD>_<REASON>"}}`. Every POST takes an ' +
    '`Idempotency-Key` header, which makes its retry safe.',
};

/** The operation of one route: its parameters and body from its GraphQL operation's variables. */
function routeOperation(
  builder: Builder,
  at: { route: RouteSpec; operationId: string; name: string | null; primary: RouteSpec },
): OpenApiOperation {
  const { route, operationId, name, primary } = at;
  const inputs = inputsOf(builder, route, operationId);
  const parameters = [
    ...inputs.path.map((input) => parameter(input, 'path')),
    ...inputs.query.map((input) => parameter(input, 'query')),
    ...(route.method === 'post' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(route.method === 'get' ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
  ];
  const description =
    primary !== route
      ? `Alias of \`${primary.method.toUpperCase()} ${openApiPath(primary.path)}\`, answering ` +
        'exactly like it (kept for a published mobile client).'
      : name
        ? describeOperation(builder, operationNamed(builder, name))
        : dispatched[`${route.method} ${route.path}`]?.description;
  return {
    operationId,
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: [route.tag],
    security: route.public ? [] : [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(inputs.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              bodyMediaTypes[route.body].map((type) => [
                type,
                { schema: schemaRef(`${operationId}Body`) },
              ]),
            ),
          },
        }
      : {}),
    responses: responsesOf(route, name, inputs.fields),
  };
}

/** The operation of a health probe. */
function healthOperation(probe: (typeof healthProbes)[number]): OpenApiOperation {
  return {
    operationId: probe.operationId,
    summary: probe.summary,
    tags: ['health'],
    security: [],
    responses: probe.responses,
  };
}

/**
 * The OpenAPI 3.1 document of the REST facade, generated from the route table: every route's
 * parameters and body come from its GraphQL operation's variables (with the limits of the
 * arguments they feed), its success response from the table, its errors from the contract.
 */
export function buildOpenApiDocument(
  schema: GraphQLSchema,
  routes: readonly RouteSpec[] = declaredRoutes,
): OpenApiDocument {
  const builder: Builder = { schema, operations: loadOperations(schema), bodies: {} };
  const paths: OpenApiDocument['paths'] = {};
  const ids = operationIds(routes);
  const primaries = new Map<string, RouteSpec>();
  routes.forEach((route, index) => {
    const operationId = ids[index] as string;
    const name = typeof route.operation === 'string' ? route.operation : null;
    const primary = name ? (primaries.get(name) ?? route) : route;
    if (name) {
      primaries.set(name, primary);
    }
    const operation = routeOperation(builder, { route, operationId, name, primary });
    (paths[openApiPath(route.path)] ??= {})[route.method] = operation;
  });
  for (const probe of healthProbes) {
    paths[probe.path] = { get: healthOperation(probe) };
  }
  return {
    openapi: '3.1.0',
    info: API_INFO,
    servers: [{ url: '/api/v1', description: 'This service' }],
    tags,
    paths,
    components: {
      schemas: {
        ...responseSchemas(schema, builder.operations, routes, operationsOf),
        ...contractSchemas,
        ...builder.bodies,
      },
      responses: sharedResponses,
      parameters: sharedParameters,
      headers: sharedHeaders,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An access token from POST /auth/login or POST /auth/token (or from a trusted ' +
            'external authorization server).',
        },
      },
    },
  };
}
