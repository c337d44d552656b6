import 'reflect-metadata';
import { type GraphQLSchema, isObjectType } from 'graphql';
import { createSchema } from '../../src/context';
import { ValidationFailedError } from '../../src/platform/shared/errors';

/** A field's resolver as the schema holds it. */
function resolverOf(schema: GraphQLSchema, typeName: string, fieldName: string) {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) {
    throw new Error(`${typeName} is no object type`);
  }
  const resolve = type.getFields()[fieldName]?.resolve;
  if (!resolve) {
    throw new Error(`${typeName}.${fieldName} has no resolver`);
  }
  return resolve;
}

describe('field resolvers called directly', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = await createSchema();
  });

  it('answer a value the loader holds synchronously (no promise per item), with the parent and context as given', () => {
    const user = { id: 'u1', name: 'Known User' };
    const asked: unknown[] = [];
    const context = {
      loaders: {
        users: {
          get: (id: string) => {
            asked.push(id);
            return user;
          },
        },
      },
    };
    const resolve = resolverOf(schema, 'Participant', 'user');
    const answer = resolve({ userId: 'u1' }, {}, context, {} as never);
    expect(answer).toBe(user);
    expect(asked).toEqual(['u1']);
  });

  it('leave a field with arguments to type-graphql, which validates them first', async () => {
    const resolve = resolverOf(schema, 'Meeting', 'participantsConnection');
    // type-graphql's handler checks the arguments (first must be positive) before calling.
    await expect(
      Promise.resolve().then(() =>
        resolve({ id: 'm1' }, { first: -1 }, { loaders: {} }, {} as never),
      ),
    ).rejects.toBeInstanceOf(ValidationFailedError);
  });
});
