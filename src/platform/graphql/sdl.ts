import { printSchemaWithDirectives } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';

/**
 * A schema's SDL as it is committed in schema/schema.graphql: printed with the directives its
 * fields carry (the cost directives: graphql-js's printSchema leaves applied directives out),
 * with a final newline.
 */
export const schemaSdl = (schema: GraphQLSchema): string =>
  `${printSchemaWithDirectives(schema)}\n`;
