import type {
  GatewayExecutor,
  GatewayInterface,
  GatewaySchemaLoadOrUpdateCallback,
} from '@apollo/server-gateway-interface';
import { type DocumentNode, execute, GraphQLError, type GraphQLSchema, printSchema } from 'graphql';
import type { AuthContext } from '../auth/authenticate';
import { compileOperation } from './compiled-query';
import { variableFailure } from './variable-check';

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
    return compiled(context, variables);
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
