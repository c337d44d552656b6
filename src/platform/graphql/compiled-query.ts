import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';

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
