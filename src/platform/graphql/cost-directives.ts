import {
  DirectiveLocation,
  getNullableType,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLSchema,
  GraphQLString,
  isInterfaceType,
  isListType,
  isObjectType,
} from 'graphql';
import { DEFAULT_SLICE_SIZE } from '../sql/keyset';
import { boundOf, isSlice, SLICING_ARGUMENTS, UNBOUNDED_LIST } from './list-size';

/**
 * The IBM GraphQL cost directives (ibm.github.io/graphql-specs/cost-spec.html), which Apollo
 * Router, Cosmo and Hive Router read: the schema shows with them how this service counts
 * (operation-measure.ts), so a gateway in front of it can count alike. `@cost` is printed where a
 * field's weight is a number of its own; a weight that grows with arguments is told in the
 * field's description.
 */
export const COST_DIRECTIVES = [
  new GraphQLDirective({
    name: 'cost',
    description: "What the field costs each time it is answered, in place of its type's weight.",
    locations: [DirectiveLocation.FIELD_DEFINITION],
    args: { weight: { type: new GraphQLNonNull(GraphQLString) } },
  }),
  new GraphQLDirective({
    name: 'listSize',
    description:
      'How many items the list holds: the slicing argument given, else assumedSize; the ' +
      "slice's own lists (sizedFields) hold as many.",
    locations: [DirectiveLocation.FIELD_DEFINITION],
    args: {
      assumedSize: { type: GraphQLInt },
      slicingArguments: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      sizedFields: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      requireOneSlicingArgument: { type: GraphQLBoolean, defaultValue: true },
    },
  }),
];

/** The lists of a slice (connection or page) that hold its items. */
const SIZED_FIELDS = ['edges', 'nodes', 'data'];

/**
 * Marks each field with the cost directives its own facts give (graphql-tools' convention:
 * `extensions.directives`, which the printed SDL shows): `@listSize` from the list's bound and
 * slicing arguments, `@cost` from a declared numeric weight, and a rule in words appended to the
 * description of a field whose cost grows with its arguments.
 */
export function annotateCosts(schema: GraphQLSchema): void {
  const bounds = schema.extensions.listBounds ?? [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(isObjectType(type) || isInterfaceType(type)) || type.name.startsWith('__')) {
      continue;
    }
    for (const field of Object.values(type.getFields())) {
      const directives: Record<string, Record<string, unknown>> = {};
      const { cost, costRule } = field.extensions;
      if (typeof cost === 'number') {
        directives['cost'] = { weight: String(cost) };
      }
      if (costRule) {
        field.description = `${field.description ?? ''}\n\nCost: ${costRule}`.trim();
      }
      const inner = getNullableType(field.type);
      const slicing = SLICING_ARGUMENTS.filter((name) => field.args.some((a) => a.name === name));
      const bound = boundOf(bounds, type, field);
      const slice = isObjectType(inner) && isSlice(inner);
      if (slicing.length > 0 || slice || (isListType(inner) && bound !== undefined)) {
        // Sized as operation-measure.ts sizes it when no slicing argument is given.
        const assumedSize = slicing.includes('first')
          ? Math.min(bound ?? DEFAULT_SLICE_SIZE, DEFAULT_SLICE_SIZE)
          : (bound ?? UNBOUNDED_LIST);
        directives['listSize'] = {
          assumedSize,
          ...(slicing.length > 0 && {
            slicingArguments: slicing,
            requireOneSlicingArgument: false,
          }),
          ...(slice && {
            sizedFields: SIZED_FIELDS.filter((name) => name in inner.getFields()),
          }),
        };
      }
      if (Object.keys(directives).length > 0) {
        field.extensions = { ...field.extensions, directives };
      }
    }
  }
}
