import {
  type DocumentNode,
  type GraphQLSchema,
  isEnumType,
  Kind,
  type NameNode,
  visit,
} from 'graphql';
import { toSnake } from './names';

/**
 * The operation document as the REST facade runs it: every field aliased with its snake_case wire
 * name (`startTime` → `start_time`), so the result's keys already are the contract's and nothing
 * has to walk and copy the result afterwards.
 */
export function withWireNames(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node) {
      const key = node.alias?.value ?? node.name.value;
      const wire = toSnake(key);
      if (wire === key) {
        return undefined;
      }
      const alias: NameNode = { kind: Kind.NAME, value: wire };
      return { ...node, alias };
    },
  });
}

const internalValue = (value: unknown): unknown => value;

/**
 * Output serialisation of every enum as its internal value, which is how the contract spells it
 * (`ALL_HANDS` is `all-hands`); values come from our own enum columns.
 */
export function wireEnumSerializers(
  schema: GraphQLSchema,
): Record<string, (value: unknown) => unknown> {
  return Object.fromEntries(
    Object.values(schema.getTypeMap())
      .filter((type) => isEnumType(type) && !type.name.startsWith('__'))
      .map((type) => [type.name, internalValue]),
  );
}
