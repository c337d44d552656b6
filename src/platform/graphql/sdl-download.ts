import type { RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import { schemaSdl } from './sdl';

/** Where the schema's SDL is downloaded from, beside the endpoint it describes. */
export const SDL_PATH = '/graphql/schema.graphql';

/**
 * `GET SDL_PATH`: the running schema printed once, as a file to save (codegen, editors), the
 * same text as schema/schema.graphql. Plain text, so a browser shown it inline would not guess.
 */
export function sdlDownload(schema: GraphQLSchema): RequestHandler {
  const sdl = schemaSdl(schema);
  return (_req, res) => {
    // attachment() first: it sets a type from the file name, replaced here by plain text.
    res.attachment('schema.graphql').type('text/plain; charset=utf-8').send(sdl);
  };
}
