import {
  getMetadataStorage as validationMetadata,
  IsDefined,
  IsOptional,
  ValidateIf,
} from 'class-validator';
import { getMetadataStorage as schemaMetadata, InputType } from 'type-graphql';

/** A class an input can be derived from (or built on): constructible without arguments. */
export type InputClass<T> = new () => T;

/** Where a derived input starts from, and descriptions that read differently there. */
interface Derivation<B, K extends string> {
  base?: InputClass<B>;
  descriptions?: Partial<Record<K, string>>;
}

/**
 * Declares the fields `keys` of `source` (an input or args class, its ancestors included) on
 * `target`: the same GraphQL type and description, the same class-validator rules. The limits stay
 * declared once, on the create input. An `optional` copy may be left out; where the source
 * requires the field, null is still refused (REQUIRED), elsewhere null is a value (it clears).
 */
function copyFields<K extends string>(
  source: InputClass<object>,
  target: InputClass<object>,
  keys: readonly K[],
  optional: boolean,
  descriptions: Partial<Record<K, string>> = {},
): void {
  const inherited = (owner: unknown): boolean =>
    owner === source || (typeof owner === 'function' && source.prototype instanceof owner);
  const schema = schemaMetadata();
  for (const key of keys) {
    // The nearest declaration wins, as it does for the source itself.
    const field = schema.fields.filter((f) => f.name === key && inherited(f.target)).at(-1);
    if (!field) {
      throw new Error(`${source.name} declares no GraphQL field ${key}`);
    }
    const typeOptions = optional ? { ...field.typeOptions, nullable: true } : field.typeOptions;
    schema.collectClassFieldMetadata({
      ...field,
      target,
      description: descriptions[key] ?? field.description,
      typeOptions,
      // type-graphql marks a list field (`array`, `arrayDepth`) on its own options when it first
      // reads the field's type: the copy's options are marked alike, or a list became one item.
      getType: () => {
        const type = field.getType();
        if (field.typeOptions.array) {
          Object.assign(typeOptions, { array: true, arrayDepth: field.typeOptions.arrayDepth });
        }
        return type;
      },
    });
    if (optional && field.typeOptions.nullable) {
      IsOptional()(target.prototype, key);
    } else if (optional) {
      ValidateIf((_object, value) => value !== undefined)(target.prototype, key);
      IsDefined()(target.prototype, key);
    }
  }
  const validation = validationMetadata();
  for (const rule of validation.getTargetValidationMetadatas(source, '', false, false)) {
    if ((keys as readonly string[]).includes(rule.propertyName)) {
      const copy = Object.create(Object.getPrototypeOf(rule) as object) as typeof rule;
      validation.addValidationMetadata(Object.assign(copy, rule, { target }));
    }
  }
}

/** An abstract input class with the fields `keys` of `source`, required as they are there. */
export function PickInput<S extends object, K extends keyof S & string, B extends object = object>(
  source: InputClass<S>,
  keys: readonly K[],
  { base, descriptions }: Derivation<B, K> = {},
): InputClass<B & Pick<S, K>> {
  const parent: InputClass<object> = base ?? Object;
  @InputType()
  class Picked extends parent {}
  copyFields(source, Picked, keys, false, descriptions);
  return Picked as InputClass<B & Pick<S, K>>;
}

/** An abstract input class with the fields `keys` of `source`, each of which may be left out. */
export function PartialInput<
  S extends object,
  K extends keyof S & string,
  B extends object = object,
>(
  source: InputClass<S>,
  keys: readonly K[],
  { base, descriptions }: Derivation<B, K> = {},
): InputClass<B & Partial<Pick<S, K>>> {
  const parent: InputClass<object> = base ?? Object;
  @InputType()
  class Optional extends parent {}
  copyFields(source, Optional, keys, true, descriptions);
  return Optional as InputClass<B & Partial<Pick<S, K>>>;
}
