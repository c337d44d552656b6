import {
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { toSnake } from './names';

type Convert = (value: unknown) => unknown;

/** One selected field: where it is in the GraphQL result, its wire name, how its value converts. */
interface FieldPlan {
  key: string;
  wire: string;
  convert: Convert;
}

/** A GraphQL result turned into the REST wire form. */
export type WireConverter = (data: Record<string, unknown>) => Record<string, unknown>;

const asIs: Convert = (value) => value;

/**
 * Compiles, once per operation, the conversion of its results into the REST wire form: snake_case
 * keys in selection order and enum values as the contract spells them (`ALL_HANDS` →
 * `all-hands`). Driven by the operation's selections and the schema's types, so it works for every
 * route alike, and no request walks the selections again.
 */
export function compileWireConverter(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): WireConverter {
  const root =
    definition.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) {
    throw new Error('schema has no root type for this operation');
  }

  const fieldsOf = (type: GraphQLObjectType, selectionSet: SelectionSetNode): FieldPlan[] => {
    const plans: FieldPlan[] = [];
    const visit = (selections: SelectionSetNode): void => {
      for (const selection of selections.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = fragments.get(selection.name.value);
          if (fragment) {
            visit(fragment.selectionSet);
          }
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          visit(selection.selectionSet);
        } else {
          const key = selection.alias?.value ?? selection.name.value;
          const field = type.getFields()[selection.name.value];
          plans.push({
            key,
            wire: toSnake(key),
            convert: field ? converterFor(field.type, selection.selectionSet) : asIs,
          });
        }
      }
    };
    visit(selectionSet);
    return plans;
  };

  const objectConverter = (plans: readonly FieldPlan[]) => (value: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const plan of plans) {
      if (plan.key in value) {
        out[plan.wire] = plan.convert(value[plan.key]);
      }
    }
    return out;
  };

  const converterFor = (type: GraphQLOutputType, selectionSet?: SelectionSetNode): Convert => {
    const inner = isNonNullType(type) ? type.ofType : type;
    let convert: Convert = asIs;
    if (isListType(inner)) {
      const item = converterFor(inner.ofType, selectionSet);
      convert = (value) => (value as unknown[]).map(item);
    } else if (isEnumType(inner)) {
      const wireValues = new Map(inner.getValues().map((value) => [value.name, value.value]));
      convert = (value) => wireValues.get(String(value)) ?? value;
    } else if (selectionSet && isObjectType(inner)) {
      const object = objectConverter(fieldsOf(inner, selectionSet));
      convert = (value) => object(value as Record<string, unknown>);
    }
    return (value) => (value === null || value === undefined ? null : convert(value));
  };

  return objectConverter(fieldsOf(root, definition.selectionSet));
}
