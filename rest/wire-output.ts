import {
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { PreparedOperation } from './operations';
import { toSnake } from './names';

/**
 * Turns a GraphQL result into the REST wire form: snake_case keys in selection order and enum
 * values as the contract spells them (`ALL_HANDS` → `all-hands`). Driven by the operation's
 * selections and the schema's types, so it works for every route alike.
 */
export function toWire(
  schema: GraphQLSchema,
  operation: PreparedOperation,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const root =
    operation.definition.operation === 'mutation'
      ? schema.getMutationType()
      : schema.getQueryType();
  if (!root) {
    throw new Error('schema has no root type for this operation');
  }
  return convertObject(operation, root, operation.definition.selectionSet, data);
}

function convertObject(
  operation: PreparedOperation,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode,
  value: Record<string, unknown>,
): Record<string, unknown> {
  const named = getNamedType(type);
  const out: Record<string, unknown> = {};
  const visitSelections = (selections: SelectionSetNode): void => {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = operation.fragments.get(selection.name.value);
        if (fragment) {
          visitSelections(fragment.selectionSet);
        }
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        visitSelections(selection.selectionSet);
        continue;
      }
      const key = selection.alias?.value ?? selection.name.value;
      if (!(key in value) || !isObjectType(named)) {
        continue;
      }
      const field = named.getFields()[selection.name.value];
      out[toSnake(key)] = field
        ? convertValue(operation, field.type, selection.selectionSet, value[key])
        : value[key];
    }
  };
  visitSelections(selectionSet);
  return out;
}

function convertValue(
  operation: PreparedOperation,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  value: unknown,
): unknown {
  if (value === null || value === undefined) {
    return null;
  }
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    return (value as unknown[]).map((item) =>
      convertValue(operation, inner.ofType, selectionSet, item),
    );
  }
  if (isEnumType(inner)) {
    return inner.getValue(String(value))?.value ?? value;
  }
  if (selectionSet && isObjectType(inner)) {
    return convertObject(operation, inner, selectionSet, value as Record<string, unknown>);
  }
  return value;
}
