import { getMetadataStorage as validationStorage } from 'class-validator';
import {
  getNamedType,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  typeFromAST,
  valueFromAST,
  type ValueNode,
} from 'graphql';
import { getMetadataStorage as typeGraphQLStorage } from 'type-graphql';
import { toSnake } from './names';
import { wireFieldsOf } from './wire-inputs';
import { type JsonObject, scalarSchemas, wireEnumSchema, withNull } from './openapi-schemas';
import type { PreparedOperation } from './operations';

type ValidationMetadata = ReturnType<
  ReturnType<typeof validationStorage>['getTargetValidationMetadatas']
>[number];
/** A class whose decorators declare an input's GraphQL shape and validators. */
type InputClass = Parameters<
  ReturnType<typeof validationStorage>['getTargetValidationMetadatas']
>[0];

/** One input of a REST route, as the client names and sends it. */
export interface ClientInput {
  /** The client's name: the variable in snake_case, or the route's rename. */
  name: string;
  /** Non-null in GraphQL and without a default. */
  required: boolean;
  schema: JsonObject;
}

/** Validators of the list itself; every other one constrains its items. */
const LIST_VALIDATORS = new Set(['arrayMinSize', 'arrayMaxSize']);

/**
 * The JSON Schema keywords implied by the class-validator decorators of one input property, so
 * the document states the limits the service enforces (they are declared once, on the inputs).
 */
function keywordsOf(validators: readonly ValidationMetadata[]): JsonObject {
  const keywords: JsonObject = {};
  let notBlank = false;
  for (const validator of validators) {
    const [first] = (validator.constraints ?? []) as unknown[];
    switch (validator.name) {
      case 'minLength':
      case 'trimmedMinLength':
        keywords['minLength'] = first;
        break;
      case 'maxLength':
      case 'trimmedMaxLength':
        keywords['maxLength'] = first;
        break;
      case 'min':
        keywords['minimum'] = first;
        break;
      case 'max':
        keywords['maximum'] = first;
        break;
      case 'arrayMinSize':
        keywords['minItems'] = first;
        break;
      case 'arrayMaxSize':
        keywords['maxItems'] = first;
        break;
      case 'isUuid':
        keywords['format'] = 'uuid';
        break;
      case 'isEmail':
        keywords['format'] = 'email';
        break;
      case 'isIso8601':
        keywords['format'] = 'date-time';
        break;
      case 'matches':
        keywords['pattern'] = first instanceof RegExp ? first.source : String(first);
        break;
      case 'notBlank':
      case 'isNotEmpty':
        notBlank = true;
        break;
    }
  }
  if (notBlank && !('minLength' in keywords || 'format' in keywords || 'pattern' in keywords)) {
    keywords['minLength'] = 1;
  }
  return keywords;
}

/** The validators of a property of a type-graphql class (inherited ones included). */
function validatorsOf(target: InputClass | undefined, property: string): ValidationMetadata[] {
  if (!target) {
    return [];
  }
  return validationStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .filter((validator) => validator.propertyName === property);
}

/** The `@Args()` classes of the resolver method behind a root field. */
function argsClassesOf(kind: 'query' | 'mutation', field: string): InputClass[] {
  const storage = typeGraphQLStorage();
  const handler = (kind === 'mutation' ? storage.mutations : storage.queries).find(
    (candidate) => candidate.schemaName === field,
  );
  if (!handler) {
    return [];
  }
  return storage.params.flatMap((param) =>
    param.kind === 'args' &&
    param.target === handler.target &&
    param.methodName === handler.methodName
      ? [param.getType() as InputClass]
      : [],
  );
}

const inputClassOf = (name: string): InputClass | undefined =>
  typeGraphQLStorage().inputTypes.find((input) => input.name === name)?.target;

/**
 * The JSON Schema of a GraphQL input type in wire form: snake_case properties, enum values as
 * the wire spells them (`all-hands`), required = non-null without a default.
 */
function schemaOf(
  type: GraphQLInputType,
  validators: readonly ValidationMetadata[],
  nullable: boolean,
): JsonObject {
  if (isNonNullType(type)) {
    return schemaOf(type.ofType, validators, false);
  }
  let schema: JsonObject;
  if (isListType(type)) {
    const ofList = (v: ValidationMetadata): boolean => LIST_VALIDATORS.has(v.name ?? '');
    schema = {
      type: 'array',
      items: schemaOf(
        type.ofType,
        validators.filter((v) => !ofList(v)),
        true,
      ),
      ...keywordsOf(validators.filter(ofList)),
    };
  } else if (isEnumType(type)) {
    schema = wireEnumSchema(type);
  } else if (isInputObjectType(type)) {
    const target = inputClassOf(type.name);
    const properties: Record<string, JsonObject> = {};
    const required: string[] = [];
    for (const field of wireFieldsOf(type)) {
      const name = toSnake(field.name);
      properties[name] = describe(
        schemaOf(field.type, validatorsOf(target, field.name), true),
        field.description,
        field.defaultValue,
      );
      if (isNonNullType(field.type) && field.defaultValue === undefined) {
        required.push(name);
      }
    }
    schema = {
      type: 'object',
      ...(type.description ? { description: type.description } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
  } else {
    const scalar = type.name;
    const keywords = keywordsOf(validators);
    const constrained: JsonObject = {
      ...(scalarSchemas[scalar] ?? { type: 'string' }),
      ...keywords,
    };
    // Int is 32-bit: say so where the validators leave it open.
    if (scalar === 'Int' && !('minimum' in keywords && 'maximum' in keywords)) {
      constrained['format'] = 'int32';
    }
    schema = constrained;
  }
  return nullable ? withNull(schema) : schema;
}

function describe(schema: JsonObject, description?: string | null, value?: unknown): JsonObject {
  return {
    ...schema,
    ...(description ? { description } : {}),
    ...(value !== undefined && value !== null ? { default: value } : {}),
  };
}

/** What a variable feeds: an argument of a root field, or a field of an input object in one. */
interface Fed {
  description?: string | null;
  defaultValue?: unknown;
  validators: ValidationMetadata[];
}

/**
 * Which argument, or input field inside an argument (`input: { name: $name }`), each variable of
 * the operation feeds, with the validators declared on it.
 */
function argumentsFed(schema: GraphQLSchema, operation: PreparedOperation): Map<string, Fed> {
  const kind = operation.definition.operation === 'mutation' ? 'mutation' : 'query';
  const root = kind === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fed = new Map<string, Fed>();
  const feed = (value: ValueNode, type: GraphQLInputType, use: Fed): void => {
    const named = getNamedType(type);
    if (value.kind === Kind.VARIABLE) {
      if (!fed.has(value.name.value)) {
        fed.set(value.name.value, use);
      }
    } else if (value.kind === Kind.OBJECT && isInputObjectType(named)) {
      for (const node of value.fields) {
        const field = named.getFields()[node.name.value];
        if (field) {
          feed(node.value, field.type, {
            description: field.description,
            defaultValue: field.defaultValue,
            validators: validatorsOf(inputClassOf(named.name), field.name),
          });
        }
      }
    }
  };
  for (const selection of operation.definition.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || !root) {
      continue;
    }
    const field = root.getFields()[selection.name.value];
    for (const node of selection.arguments ?? []) {
      const argument = field?.args.find((candidate) => candidate.name === node.name.value);
      if (argument) {
        feed(node.value, argument.type, {
          description: argument.description,
          defaultValue: argument.defaultValue,
          validators: argsClassesOf(kind, selection.name.value).flatMap((target) =>
            validatorsOf(target, argument.name),
          ),
        });
      }
    }
  }
  return fed;
}

/**
 * The inputs of an operation, one per variable, each with the JSON Schema of its wire form, its
 * limits (from the validators of the argument it feeds) and its default (the variable's, or the
 * argument's). `nullable` says whether a nullable input may be sent as JSON `null`.
 */
export function operationInputs(
  schema: GraphQLSchema,
  operation: PreparedOperation,
  options: { renames?: Readonly<Record<string, string>>; nullable: boolean },
): ClientInput[] {
  const fed = argumentsFed(schema, operation);
  return (operation.definition.variableDefinitions ?? []).map((definition) => {
    const variable = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType;
    const use = fed.get(variable);
    const validators = use?.validators ?? [];
    const fallback = definition.defaultValue
      ? valueFromAST(definition.defaultValue, type)
      : use?.defaultValue;
    return {
      name: options.renames?.[variable] ?? toSnake(variable),
      required: isNonNullType(type) && fallback === undefined,
      schema: describe(
        schemaOf(type, validators, options.nullable && fallback === undefined),
        use?.description,
        fallback,
      ),
    };
  });
}
