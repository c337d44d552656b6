import { buildSchema, isObjectType, parse } from 'graphql';
import { compileOperation } from '../../src/platform/graphql/execution';

const schema = buildSchema(`
  type Item { name: String! note: String }
  type Group { items: [Item!]! }
  type Query { groups: [Group!]! }
`);
const query = schema.getQueryType();
if (isObjectType(query)) {
  // The compiled operation runs without a root value: the groups come from the context.
  query.getFields()['groups']!.resolve = (_root, _args, context: { groups: unknown }) =>
    context.groups;
}
const document = parse('query Groups {\n  groups {\n    items { name note }\n  }\n}');

describe('compiled operations (graphql-jit) with failing leaves', () => {
  it('answer each failing leaf with its own path and location, and null up to the nearest nullable parent', async () => {
    const run = compileOperation(schema, document, 'Groups');
    if (typeof run !== 'function') {
      throw new Error('the operation did not compile');
    }
    const groups = [
      { items: [{ name: 'a', note: 'x' }] },
      {
        items: [
          { name: 'b', note: null },
          { name: 'c', note: new Error('note failed') },
        ],
      },
    ];
    const result = await run({ groups }, {});
    expect(result.data).toEqual({
      groups: [
        { items: [{ name: 'a', note: 'x' }] },
        {
          items: [
            { name: 'b', note: null },
            { name: 'c', note: null },
          ],
        },
      ],
    });
    expect(result.errors?.map((error) => error.toJSON())).toEqual([
      {
        message: 'note failed',
        path: ['groups', 1, 'items', 1, 'note'],
        locations: [{ line: 3, column: 18 }],
      },
    ]);

    const broken = [{ items: [{ name: 'a', note: null }] }, { items: [{ name: null, note: 'y' }] }];
    const nulled = await run({ groups: broken }, {});
    // Every list and field above is non-null: the whole answer is null.
    expect(nulled.data).toBeNull();
    expect(nulled.errors?.map((error) => error.toJSON())).toEqual([
      {
        message: 'Cannot return null for non-nullable field Item.name.',
        path: ['groups', 1, 'items', 0, 'name'],
        locations: [{ line: 3, column: 13 }],
      },
    ]);
  });
});
