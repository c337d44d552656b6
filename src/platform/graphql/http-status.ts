import type { ApolloServerPlugin } from '@apollo/server';
import type { AuthContext } from '../auth/tokens';

const JSON_TYPE = /^application\/json\b/i;

/** Whether a client accepts `application/json` answers only (not the GraphQL response type). */
export function acceptsOnlyJson(accept: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return types.length > 0 && types.every((type) => JSON_TYPE.test(type));
}

/**
 * GraphQL over HTTP: a request that fails before execution (a document that does not parse or
 * validate, variables that do not coerce, an operation too large) answers 400 to clients of
 * `application/graphql-response+json`, but 200 to clients that accept only `application/json`,
 * which read the errors from the body (the spec's SHOULD for that media type).
 */
export function jsonClientStatusPlugin(): ApolloServerPlugin<AuthContext> {
  return {
    async requestDidStart({ request }) {
      if (!acceptsOnlyJson(request.http?.headers.get('accept'))) {
        return;
      }
      return {
        async willSendResponse({ response }) {
          const body = response.body;
          if (
            response.http.status === 400 &&
            body.kind === 'single' &&
            body.singleResult.data === undefined &&
            (body.singleResult.errors?.length ?? 0) > 0
          ) {
            response.http.status = 200;
          }
        },
      };
    },
  };
}
