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

type Write = (value: unknown) => string;

/** One selected field: where it is in the GraphQL result, its wire name, how its value is written. */
interface FieldPlan {
  key: string;
  /** `"snake_name":`, ready to be followed by the value. */
  prefix: string;
  write: Write;
}

/** The JSON text of an operation's root field, in the REST wire form. */
export type WireWriter = (data: Record<string, unknown>) => string;

const scalar: Write = (value) => JSON.stringify(value) ?? 'null';

/**
 * Compiles, once per operation, the writing of its result's root field as REST JSON: snake_case
 * keys in selection order and enum values as the contract spells them (`ALL_HANDS` →
 * `all-hands`). Driven by the operation's selections and the schema's types, so it works for every
 * route alike; no request walks the selections again or builds the converted objects first.
 * The text is what JSON.stringify would write for the converted value.
 */
export function compileWireWriter(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): WireWriter {
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
            prefix: `${JSON.stringify(toSnake(key))}:`,
            write: field ? writerFor(field.type, selection.selectionSet) : scalar,
          });
        }
      }
    };
    visit(selectionSet);
    return plans;
  };

  const objectWriter =
    (plans: readonly FieldPlan[]): Write =>
    (value) => {
      const object = value as Record<string, unknown>;
      let text = '';
      for (const plan of plans) {
        if (plan.key in object) {
          text += `${text === '' ? '' : ','}${plan.prefix}${plan.write(object[plan.key])}`;
        }
      }
      return `{${text}}`;
    };

  const writerFor = (type: GraphQLOutputType, selectionSet?: SelectionSetNode): Write => {
    const inner = isNonNullType(type) ? type.ofType : type;
    let write: Write = scalar;
    if (isListType(inner)) {
      const item = writerFor(inner.ofType, selectionSet);
      write = (value) => `[${(value as unknown[]).map(item).join(',')}]`;
    } else if (isEnumType(inner)) {
      const wireValues = new Map(
        inner.getValues().map((value) => [value.name, JSON.stringify(value.value)]),
      );
      write = (value) => wireValues.get(String(value)) ?? scalar(value);
    } else if (selectionSet && isObjectType(inner)) {
      write = objectWriter(fieldsOf(inner, selectionSet));
    }
    return (value) => (value === null || value === undefined ? 'null' : write(value));
  };

  const [first] = fieldsOf(root, definition.selectionSet);
  if (!first) {
    throw new Error('operation selects no root field');
  }
  return (data) => first.write(data[first.key]);
}
