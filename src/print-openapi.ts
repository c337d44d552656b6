import 'reflect-metadata';
import { createSchema } from './context';
import { buildOpenApiDocument } from '../rest/openapi';

/** Prints the OpenAPI document of the REST facade (for `npm run lint:openapi`). */
async function main(): Promise<void> {
  const document = buildOpenApiDocument(await createSchema());
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

void main();
