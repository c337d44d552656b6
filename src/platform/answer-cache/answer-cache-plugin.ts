import type { ApolloServerPlugin } from '@apollo/server';
import { currentRecording } from './answer-cache';

/**
 * Marks a GraphQL answer keepable by the answer cache: a query (never a mutation) answered
 * without errors. The HTTP handler keeps it (src/platform/graphql/apollo-http.ts).
 */
export function answerCachePlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response }) {
          const recording = currentRecording();
          if (recording) {
            recording.keepable =
              operation?.operation === 'query' &&
              response.body.kind === 'single' &&
              !response.body.singleResult.errors;
          }
        },
      };
    },
  };
}
