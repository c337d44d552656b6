import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { VariablePosition } from '../src/platform/graphql/argument-rules';
import type { RunOperation } from '../src/platform/graphql/execution';

/** A named GraphQL operation, parsed and validated against the schema once, at start-up. */
export interface PreparedOperation {
  name: string;
  document: DocumentNode;
  definition: OperationDefinitionNode;
  /**
   * Runs the operation, compiled once to JavaScript (graphql-jit) with the same schema and
   * resolvers, and answers its data in the REST wire form: snake_case keys, enums as spelled by
   * the contract.
   */
  run: RunOperation;
  /** Where the REST body is in the result's data, by wire names (see bodyPath). */
  bodyPath: readonly string[];
  /** Where each variable lands in the root field's arguments (field errors are named by them). */
  positions: readonly VariablePosition[];
}
