import type { ApolloServerPlugin } from '@apollo/server';
import { READ_AFTER_HEADER } from '../observability/request-tracking';

/**
 * With read replicas: a mutation's answer carries the write position its reads must wait for,
 * as the `X-Read-After` header and as `extensions.readAfter`; a client that sends it back in
 * `X-Read-After` reads its own writes from whichever instance and replica answers.
 */
export function readAfterPlugin(
  positionAfterWrite: () => Promise<string | null>,
): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response }) {
          if (operation?.operation !== 'mutation' || response.body.kind !== 'single') {
            return;
          }
          const position = await positionAfterWrite();
          if (position) {
            response.http.headers.set(READ_AFTER_HEADER, position);
            const result = response.body.singleResult;
            result.extensions = { ...result.extensions, readAfter: position };
          }
        },
      };
    },
  };
}
