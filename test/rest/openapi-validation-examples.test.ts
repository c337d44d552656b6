import { useTestApp } from '../helpers/use-test-app';
import { meetingBody } from './rest-fixtures';

interface Operation {
  parameters?: Array<{ name: string }>;
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

/** The 422 example of an operation: `{ errors: { <client path>: <code> } }`. */
const exampleOf = (operation: Operation): Record<string, string> | undefined =>
  (
    operation.responses['422']?.content?.['application/json']?.examples?.['example'] as
      | { value: { errors: Record<string, string> } }
      | undefined
  )?.value.errors;

describe('The OpenAPI 422 examples', () => {
  const t = useTestApp();
  const { rest } = t;
  let document: Document;

  beforeAll(async () => {
    document = (await (await fetch(`${t.url}/api/v1/openapi.json`)).json()) as Document;
  });

  it('name, for every route, only inputs that route has, each with its own code', () => {
    const checked: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const errors = exampleOf(operation);
        if (!errors) {
          continue;
        }
        const ref = Object.values(operation.requestBody?.content ?? {})[0]?.schema.$ref ?? '';
        const body = document.components.schemas[ref.replace('#/components/schemas/', '')];
        const inputs = [
          ...(operation.parameters ?? []).map((parameter) => parameter.name),
          ...Object.keys(body?.properties ?? {}),
        ];
        for (const [field, code] of Object.entries(errors)) {
          const input = field.split('.')[0] ?? field;
          expect({ route: `${method} ${path}`, field, known: inputs.includes(input) }).toEqual({
            route: `${method} ${path}`,
            field,
            known: true,
          });
          expect(code).toMatch(new RegExp(`^VALIDATION_${input.toUpperCase()}_[A-Z_]+$`));
        }
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked).toContain('post /meeting/create');
  });

  it('show for /meeting/create the answer the route gives to a short title and no guests', async () => {
    const example = exampleOf(document.paths['/meeting/create']?.['post'] as Operation);
    expect(example).toEqual({
      'meeting.title': 'VALIDATION_MEETING_TOO_SHORT',
      participants: 'VALIDATION_PARTICIPANTS_TOO_SHORT',
    });
    const owner = await t.seed.user();
    const response = await rest.post(
      '/meeting/create',
      { json: meetingBody([], { title: 'Plan' }) },
      { token: owner.token },
    );
    expect({ status: response.status, body: response.body }).toEqual({
      status: 422,
      body: { errors: example },
    });
  });

  it('show for the search route the answer it gives to a short query and a negative skip', async () => {
    const example = exampleOf(document.paths['/user/search']?.['get'] as Operation);
    expect(example).toEqual({ q: 'VALIDATION_Q_TOO_SHORT', skip: 'VALIDATION_SKIP_TOO_SMALL' });
    const user = await t.seed.user();
    const response = await rest.get('/user/search', {
      token: user.token,
      query: { q: 'x', skip: -1 },
    });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 422,
      body: { errors: example },
    });
  });
});
