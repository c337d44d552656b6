import { type GraphQLSchema, printSchema } from 'graphql';

/** A schema's SDL as it is committed in schema/schema.graphql: printed, with a final newline. */
export const schemaSdl = (schema: GraphQLSchema): string => `${printSchema(schema)}\n`;
