import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { variablePositions } from '../src/platform/graphql/argument-rules';
import { compileOperation, type RunOperation } from '../src/platform/graphql/execution';
import type { PreparedOperation } from './prepared-operation';
import { toSnake } from './names';
import { wireEnumSerializers, withWireNames } from './wire';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLField,
  type GraphQLSchema,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
  visit,
} from 'graphql';

export type { PreparedOperation } from './prepared-operation';

/**
 * Where the REST body is in an operation's result: the root field's value, and where that is a
 * payload (an object type named `…Payload`), the one field the operation selects of it, so
 * `register(input: …) { user { … } }` answers the user record itself.
 */
export function bodyFields(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
): Array<{ node: FieldNode; field: GraphQLField<unknown, unknown> }> {
  const chain: Array<{ node: FieldNode; field: GraphQLField<unknown, unknown> }> = [];
  let parent = schema.getRootType(definition.operation);
  let selections = definition.selectionSet.selections;
  for (;;) {
    const nodes = selections.filter((node): node is FieldNode => node.kind === Kind.FIELD);
    const node = nodes.length === 1 ? nodes[0] : undefined;
    const field = node && parent?.getFields()[node.name.value];
    if (!node || !field) {
      return chain;
    }
    chain.push({ node, field });
    const type = getNamedType(field.type);
    if (!isObjectType(type) || !type.name.endsWith('Payload') || !node.selectionSet) {
      return chain;
    }
    parent = type;
    selections = node.selectionSet.selections;
  }
}

type Serializers = Parameters<typeof compileOperation>[3];

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  name: string,
  serializers: Serializers,
): RunOperation {
  const compiled = compileOperation(schema, withWireNames(document), name, serializers);
  if (typeof compiled !== 'function') {
    throw new Error(
      `REST operation ${name} does not compile: ${compiled.errors.map((e) => e.message).join('; ')}`,
    );
  }
  return compiled;
}

const OPERATIONS_DIR = join(__dirname, 'operations');

function spreadsOf(node: OperationDefinitionNode | FragmentDefinitionNode): string[] {
  const names: string[] = [];
  visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
  return names;
}

/** One named operation of rest/operations/*.graphql, with the fragments it uses (recursively). */
export interface OperationDocument {
  name: string;
  document: DocumentNode;
  definition: OperationDefinitionNode;
}

/**
 * Every operation of rest/operations/*.graphql as a document of its own, read and parsed (not
 * validated): what the REST routes run, and the first of the trusted documents.
 */
export function operationDocuments(): OperationDocument[] {
  const definitions = readdirSync(OPERATIONS_DIR)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .flatMap((file) => parse(readFileSync(join(OPERATIONS_DIR, file), 'utf8')).definitions);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const operations: OperationDocument[] = [];
  for (const definition of definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || !definition.name) {
      continue;
    }
    // Only the fragments an operation uses, so each document stays valid on its own.
    const used = new Map<string, FragmentDefinitionNode>();
    const pending = spreadsOf(definition);
    while (pending.length > 0) {
      const name = pending.pop() as string;
      const fragment = fragments.get(name);
      if (!fragment) {
        throw new Error(`REST operation ${definition.name.value}: unknown fragment ${name}`);
      }
      if (!used.has(name)) {
        used.set(name, fragment);
        pending.push(...spreadsOf(fragment));
      }
    }
    operations.push({
      name: definition.name.value,
      document: { kind: Kind.DOCUMENT, definitions: [definition, ...used.values()] },
      definition,
    });
  }
  return operations;
}

/** Loads every operation of rest/operations/*.graphql; fails start-up on any invalid one. */
export function loadOperations(schema: GraphQLSchema): ReadonlyMap<string, PreparedOperation> {
  const serializers = wireEnumSerializers(schema);
  const operations = new Map<string, PreparedOperation>();
  for (const { name, document, definition } of operationDocuments()) {
    const errors = validate(schema, document);
    if (errors.length > 0) {
      throw new Error(
        `REST operation ${name} is invalid: ${errors.map((e) => e.message).join('; ')}`,
      );
    }
    operations.set(name, {
      name,
      document,
      definition,
      run: compile(schema, document, name, serializers),
      bodyPath: bodyFields(schema, definition).map(({ node }) =>
        toSnake(node.alias?.value ?? node.name.value),
      ),
      positions: variablePositions(definition),
    });
  }
  return operations;
}
