import { isDeepStrictEqual } from 'node:util';
import {
  type FieldNode,
  type FragmentDefinitionNode,
  getNullableType,
  type GraphQLField,
  type GraphQLNullableType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  isEnumType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { toSnake } from './names';
import { fieldFacts } from './openapi-field-facts';
import {
  type JsonObject,
  record,
  scalarSchemas,
  wireEnumSchema,
  withNull,
} from './openapi-schemas';
import { bodyFields, type PreparedOperation } from './operations';
import { ref, type RouteSpec } from './route';

/**
 * The records of the REST facade, derived from the operations the routes run: a body is its
 * operation's root field, so its JSON Schema follows from the selection set and the schema's
 * types. A named fragment is a component of that name (`...UserPublic` → `UserPublic`); a route
 * names its body's component in the table (`record('UserPage')`).
 */

/** One derivation: the schema, every fragment of rest/operations, the components so far. */
interface Walk {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  components: Map<string, JsonObject>;
}

/** The fields a selection set selects, by wire name, with fragments expanded in place. */
function selectedFields(
  walk: Walk,
  type: GraphQLObjectType,
  set: SelectionSetNode,
  into: Map<string, FieldNode[]> = new Map(),
): Map<string, FieldNode[]> {
  for (const selection of set.selections) {
    if ((selection.directives ?? []).length > 0) {
      // @skip/@include would make a field optional; every field is always present.
      throw new Error(`OpenAPI: conditional selection on ${type.name}`);
    }
    if (selection.kind === Kind.FIELD) {
      // The same key as the wire output's alias (rest/wire.ts).
      const key = toSnake(selection.alias?.value ?? selection.name.value);
      into.set(key, [...(into.get(key) ?? []), selection]);
      continue;
    }
    const fragment =
      selection.kind === Kind.FRAGMENT_SPREAD
        ? fragmentNamed(walk, selection.name.value)
        : selection;
    const condition = fragment.typeCondition?.name.value;
    if (condition !== undefined && condition !== type.name) {
      throw new Error(`OpenAPI: fragment on ${condition} inside ${type.name}`);
    }
    selectedFields(walk, type, fragment.selectionSet, into);
  }
  return into;
}

function fragmentNamed(walk: Walk, name: string): FragmentDefinitionNode {
  const fragment = walk.fragments.get(name);
  if (!fragment) {
    throw new Error(`OpenAPI: unknown fragment ${name}`);
  }
  return fragment;
}

/** A selection set that is one fragment spread: that fragment's name. */
function soleSpread(nodes: readonly FieldNode[]): string | undefined {
  const selections = nodes.flatMap((node) => node.selectionSet?.selections ?? []);
  const [only] = selections;
  return selections.length === 1 &&
    only?.kind === Kind.FRAGMENT_SPREAD &&
    (only.directives ?? []).length === 0
    ? only.name.value
    : undefined;
}

/** The record a named fragment selects, as a component of the same name. */
function fragmentComponent(walk: Walk, name: string, type: GraphQLObjectType): JsonObject {
  if (!walk.components.has(name)) {
    const fragment = fragmentNamed(walk, name);
    if (fragment.typeCondition.name.value !== type.name) {
      throw new Error(`OpenAPI: fragment ${name} is not on ${type.name}`);
    }
    walk.components.set(name, objectSchema(walk, type, [fragment.selectionSet], type.description));
  }
  return ref(name);
}

function objectSchema(
  walk: Walk,
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  description?: string | null,
): JsonObject {
  const fields = new Map<string, FieldNode[]>();
  for (const set of sets) {
    selectedFields(walk, type, set, fields);
  }
  const properties: Record<string, JsonObject> = {};
  for (const [key, nodes] of fields) {
    const name = (nodes[0] as FieldNode).name.value;
    if (name === '__typename') {
      properties[key] = { type: 'string', enum: [type.name] };
      continue;
    }
    const field = type.getFields()[name];
    if (!field) {
      throw new Error(`OpenAPI: no field ${type.name}.${name}`);
    }
    properties[key] = {
      ...outputSchema(walk, field.type, nodes),
      ...fieldFacts(type, name),
      ...(field.description ? { description: field.description } : {}),
    };
  }
  return record(description, properties);
}

/** The JSON Schema of a field's value in wire form, for the selections made on it. */
function outputSchema(walk: Walk, type: GraphQLType, nodes: readonly FieldNode[]): JsonObject {
  const inner = getNullableType(type);
  const schema = valueSchema(walk, inner, nodes);
  return inner === type ? withNull(schema) : schema;
}

function valueSchema(
  walk: Walk,
  type: GraphQLNullableType,
  nodes: readonly FieldNode[],
): JsonObject {
  if (isListType(type)) {
    return { type: 'array', items: outputSchema(walk, type.ofType, nodes) };
  }
  if (isEnumType(type)) {
    return wireEnumSchema(type);
  }
  if (isScalarType(type)) {
    const scalar = scalarSchemas[type.name];
    if (!scalar) {
      throw new Error(`OpenAPI: no JSON Schema for the scalar ${type.name}; add it`);
    }
    return { ...scalar };
  }
  if (!isObjectType(type)) {
    throw new Error(`OpenAPI: ${type.name} in a REST body is not an object type`);
  }
  const spread = soleSpread(nodes);
  if (spread) {
    return fragmentComponent(walk, spread, type);
  }
  const sets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  return objectSchema(walk, type, sets);
}

/**
 * The field whose value is the REST body: the root field an operation selects, or inside a
 * payload the field it selects of it (see bodyFields).
 */
export function bodyField(
  schema: GraphQLSchema,
  operation: PreparedOperation,
): { node: FieldNode; field: GraphQLField<unknown, unknown> } {
  const chain = bodyFields(schema, operation.definition);
  const last = chain[chain.length - 1];
  if (!last || operation.definition.selectionSet.selections.length > 1) {
    throw new Error(`OpenAPI: operation ${operation.name} must select one root field`);
  }
  return last;
}

const componentName = (schemaRef: { $ref: string }): string =>
  schemaRef.$ref.slice(ref('').$ref.length);

/** Records the body of a route under the component name the table gives it. */
function nameBody(walk: Walk, name: string, body: JsonObject, description?: string | null): void {
  if (isDeepStrictEqual(body, ref(name))) {
    return;
  }
  if (typeof body['$ref'] === 'string') {
    throw new Error(`OpenAPI: ${name} is answered with ${body['$ref']}; name the fragment ${name}`);
  }
  const { type, ...rest } = body;
  const component = { type, ...(description ? { description } : {}), ...rest };
  const known = walk.components.get(name);
  if (known && !isDeepStrictEqual(known, component)) {
    throw new Error(`OpenAPI: routes answer ${name} with different shapes`);
  }
  walk.components.set(name, component);
}

/**
 * The component schemas of every record the routes answer with, derived from their operations;
 * `operationsOf` lists the operations a route may run (one, or the choices of a dispatch).
 */
export function responseSchemas(
  schema: GraphQLSchema,
  operations: ReadonlyMap<string, PreparedOperation>,
  routes: readonly RouteSpec[],
  operationsOf: (route: RouteSpec) => readonly string[],
): Record<string, JsonObject> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const operation of operations.values()) {
    for (const definition of operation.document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        fragments.set(definition.name.value, definition);
      }
    }
  }
  const walk: Walk = { schema, fragments, components: new Map() };
  for (const route of routes) {
    // A fixed message is not a GraphQL result.
    if (route.response.message !== undefined) {
      continue;
    }
    for (const name of operationsOf(route)) {
      const operation = operations.get(name);
      if (!operation) {
        throw new Error(`OpenAPI: no operation ${name} in rest/operations`);
      }
      const { node, field } = bodyField(schema, operation);
      const body = outputSchema(walk, field.type, [node]);
      const declared = route.response.schema;
      if ('$ref' in declared) {
        nameBody(walk, componentName(declared), body, field.description);
      } else if (body['type'] === 'array') {
        nameBody(walk, componentName(declared.items), body['items'] as JsonObject);
      } else {
        throw new Error(`OpenAPI: ${route.method} ${route.path} answers a list; ${name} does not`);
      }
    }
  }
  return Object.fromEntries(walk.components);
}
