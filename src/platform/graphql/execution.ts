import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  isObjectType,
  printSchema,
} from 'graphql';
import { type BuildSchemaOptions, getMetadataStorage } from 'type-graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type {
  GatewayExecutor,
  GatewayInterface,
  GatewaySchemaLoadOrUpdateCallback,
} from '@apollo/server-gateway-interface';
import type { AuthContext } from '../auth/tokens';
import { variableFailure } from './variable-check';
import { runOperationOfKind } from '../observability/request-tracking';

type FieldResolverMetadata = ReturnType<typeof getMetadataStorage>['fieldResolvers'][number];
type ParamMetadata = NonNullable<FieldResolverMetadata['params']>[number];
type PickParam = (root: unknown, context: unknown, info: unknown) => unknown;
type ResolverClass = new () => Record<string, unknown>;

/** How a parameter is read when it is a plain one: the parent record, the context, the info. */
function plainParameter(param: ParamMetadata): PickParam | null {
  switch (param.kind) {
    case 'root':
      // A typed root would be converted to an instance of its class first: left to type-graphql.
      if (param.propertyName !== undefined || param.getType !== undefined) {
        return null;
      }
      return (root) => root;
    case 'context': {
      const name = param.propertyName;
      return name === undefined
        ? (_root, context) => context
        : (_root, context) => (context as Record<string, unknown>)[name];
    }
    case 'info':
      return (_root, _context, info) => info;
    default:
      return null;
  }
}

/**
 * The method behind a field resolver, called straight, when type-graphql adds nothing to the call:
 * a resolver class built without arguments, no @Authorized, no middleware, and only @Root(),
 * @Ctx() and @Info() parameters (no arguments to convert and validate). Else null.
 */
function directResolver(
  metadata: FieldResolverMetadata,
  instanceOf: (resolverClass: ResolverClass) => Record<string, unknown>,
): GraphQLFieldResolver<unknown, unknown> | null {
  const resolverClass = metadata.target as ResolverClass;
  const params = [...(metadata.params ?? [])].sort((a, b) => a.index - b.index);
  const picks = params.map(plainParameter);
  if (
    metadata.kind !== 'external' ||
    metadata.roles !== undefined ||
    (metadata.middlewares?.length ?? 0) > 0 ||
    resolverClass.length > 0 ||
    picks.some((pick) => pick === null)
  ) {
    return null;
  }
  const instance = instanceOf(resolverClass);
  const method = instance[metadata.methodName] as (...args: unknown[]) => unknown;
  const [first, second] = picks as PickParam[];
  // The usual shapes without an argument array per call; any other through one.
  if (picks.length === 1 && first) {
    return (root, _args, context, info) => method.call(instance, first(root, context, info));
  }
  if (picks.length === 2 && first && second) {
    return (root, _args, context, info) =>
      method.call(instance, first(root, context, info), second(root, context, info));
  }
  return (root, _args, context, info) =>
    method.apply(
      instance,
      (picks as PickParam[]).map((pick) => pick(root, context, info)),
    );
}

/**
 * type-graphql calls every field resolver through one generic handler which, on each call, builds
 * a resolver-data object, asks its container for the resolver, and sorts and maps the parameter
 * list (`Array.prototype.sort` allocates every time). For a field answered once per item of a list
 * (a meeting's 50 participants' users) that was 11% of the bytes a REST meeting request allocated.
 * Here each field whose resolver takes only plain parameters calls its method directly; the
 * others (arguments, @Authorized, middleware) keep type-graphql's handler, and all of them do
 * when the schema has global middleware. (The auth checker runs only for fields with roles.)
 */
export function callFieldResolversDirectly(
  schema: GraphQLSchema,
  built: Pick<BuildSchemaOptions, 'globalMiddlewares'>,
): void {
  if ((built.globalMiddlewares?.length ?? 0) > 0) {
    return;
  }
  const storage = getMetadataStorage();
  const typeNames = new Map(storage.objectTypes.map((type) => [type.target, type.name]));
  // One instance per resolver class, as type-graphql's own container keeps.
  const instances = new Map<ResolverClass, Record<string, unknown>>();
  const instanceOf = (resolverClass: ResolverClass) => {
    let instance = instances.get(resolverClass);
    if (!instance) {
      instance = new resolverClass();
      instances.set(resolverClass, instance);
    }
    return instance;
  };
  for (const metadata of storage.fieldResolvers) {
    const target = metadata.getObjectType?.();
    const typeName = target && typeNames.get(target);
    const type = typeName ? schema.getType(typeName) : undefined;
    const field = isObjectType(type) ? type.getFields()[metadata.schemaName] : undefined;
    const resolve = field && directResolver(metadata, instanceOf);
    if (field && resolve) {
      field.resolve = resolve;
    }
  }
}

/** An operation compiled to JavaScript: runs against the schema's own resolvers. */
export type RunOperation = (
  context: unknown,
  variables: Readonly<Record<string, unknown>>,
) => Promise<ExecutionResult>;

/**
 * graphql-jit reports errors with its own GraphQLError, whose fields cannot be changed and which
 * knows no AST nodes; everything downstream (Apollo, its plugins, our error mapping) expects
 * graphql-js's, so each becomes one, keeping message, path, locations, cause and extensions.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const converted = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
  if (error.locations) {
    Object.defineProperty(converted, 'locations', { value: error.locations, enumerable: true });
  }
  return converted;
}

/**
 * Compiles one operation of a document, or answers why it cannot run (as execute would).
 * `serializers` replace the output serialisation of the named leaf types.
 */
export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
  serializers: Readonly<Record<string, (value: unknown) => unknown>> = {},
): RunOperation | { errors: readonly GraphQLError[] } {
  const compiled = compileQuery(schema, document, operationName, {
    customSerializers: { ...serializers },
  });
  if (!isCompiledQuery(compiled)) {
    return { errors: compiled.errors ?? [] };
  }
  return async (context, variables) => {
    const result = await compiled.query(undefined, context, variables);
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLJsError) } : result;
  };
}

type Compiled = ReturnType<typeof compileOperation>;

/**
 * Executes /graphql operations compiled to JavaScript by graphql-jit, once per parsed document
 * (Apollo keeps parsed, validated documents in its document store, so a document that recurs is
 * the same object and compiles once). Apollo's executor hook is its gateway interface: a gateway
 * here that serves our one local schema, so parsing, validation, limits, error formatting and the
 * HTTP layer all stay Apollo's.
 */
export function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const byDocument = new WeakMap<DocumentNode, Map<string, Compiled>>();
  let listener: GatewaySchemaLoadOrUpdateCallback | null = null;

  const compiledFor = (document: DocumentNode, operationName: string | undefined): Compiled => {
    let operations = byDocument.get(document);
    if (!operations) {
      operations = new Map();
      byDocument.set(document, operations);
    }
    const key = operationName ?? '';
    let compiled = operations.get(key);
    if (!compiled) {
      compiled = compileOperation(schema, document, operationName);
      operations.set(key, compiled);
    }
    return compiled;
  };

  const executor: GatewayExecutor = async (request) => {
    if (request.operation?.operation !== 'query' && request.operation?.operation !== 'mutation') {
      // No operation of that name (or several and none named), or a subscription, which this
      // schema has none of: graphql-js answers these as it always has.
      return execute({
        schema,
        document: request.document,
        // The name asked for: Apollo's own operationName is null when it resolved none.
        operationName: request.request.operationName,
        contextValue: request.context,
        variableValues: request.request.variables,
      });
    }
    const compiled = compiledFor(request.document, request.operationName ?? undefined);
    if (typeof compiled !== 'function') {
      return { errors: compiled.errors };
    }
    const variables = request.request.variables ?? {};
    const context = request.context as AuthContext;
    try {
      const refused = await variableFailure(schema, request.operation, variables, context);
      if (refused) {
        return { errors: [refused] };
      }
    } catch (error) {
      // The caller, judged first as the resolvers would: an UnauthenticatedError.
      if (error instanceof GraphQLError) {
        return { errors: [error] };
      }
      throw error;
    }
    return runOperationOfKind(request.operation.operation, () => compiled(context, variables));
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      listener = callback;
      return () => {
        listener = null;
      };
    },
    async load() {
      listener?.({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return { executor };
    },
    async stop() {},
  };
}
