import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { QueryTooLargeError } from '../shared/errors';
import { MAX_PAGE_SIZE } from '../shared/pagination';
import { MAX_NODES } from './list-size';
import { fragmentsOf, type Measure, measureDocument, measureOperation } from './operation-measure';

/** The most records an operation of a document can answer, given its variables. */
export const countDocumentNodes = (
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> = {},
  operationName?: string,
): number => measureDocument(schema, document, variables, operationName).nodes;

/** Refuses (QueryTooLargeError) a measured operation that could answer more than MAX_NODES. */
export function assertMeasureWithinNodeLimit({ nodes }: Measure): void {
  if (nodes > MAX_NODES) {
    throw new QueryTooLargeError(
      nodes,
      MAX_NODES,
      `The operation could answer up to ${nodes} records, more than ${MAX_NODES}: ` +
        `ask for smaller slices (first/last at most ${MAX_PAGE_SIZE}) or fewer nested lists.`,
    );
  }
}

/**
 * Refuses (QueryTooLargeError) an operation that could answer more than MAX_NODES records;
 * answers its measure.
 */
export function assertWithinNodeLimit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): Measure {
  const measure = measureOperation(schema, operation, fragmentsOf(document), variables);
  assertMeasureWithinNodeLimit(measure);
  return measure;
}
