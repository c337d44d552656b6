import type { ApolloServerPlugin } from '@apollo/server';
import type { AuthContext } from '../auth/tokens';
import { AnswerCache, currentRecording } from './answer-cache';

/**
 * The answer cache in Apollo's pipeline, so that a kept answer goes through the same steps as an
 * executed one (its cost paid and refunded, its operation named): statements are recorded from
 * where the context (and its caller) is made; a query asked again by the same caller is answered
 * from the kept answer without executing; one answered without errors is marked keepable (the
 * HTTP handler keeps its bytes, src/platform/graphql/apollo-http.ts).
 */
export function answerCachePlugin(answers: AnswerCache): ApolloServerPlugin<AuthContext> {
  return {
    async requestDidStart() {
      const recording = currentRecording();
      if (!recording) {
        return {};
      }
      recording.active = true;
      return {
        async responseForOperation({ operation, request, contextValue, response }) {
          // Apollo calls this even when no operation of the document has the name asked for
          // (its refusal follows): `operation` is then missing, whatever its type says.
          const resolved = operation as typeof operation | undefined;
          if (resolved?.operation !== 'query') {
            return null;
          }
          recording.key = AnswerCache.keyOf(
            'graphql',
            JSON.stringify(contextValue.auth),
            request.http?.headers.get('accept') ?? '',
            request.query ?? '',
            request.operationName ?? '',
            JSON.stringify(request.variables ?? {}),
            JSON.stringify(request.extensions ?? {}),
          );
          const kept = answers.get(recording.key);
          if (!kept) {
            return null;
          }
          recording.hit = true;
          return {
            http: response.http,
            body: { kind: 'single', singleResult: JSON.parse(kept.text) as object },
          };
        },
        async willSendResponse({ operation, response }) {
          recording.keepable =
            !recording.hit &&
            operation?.operation === 'query' &&
            response.body.kind === 'single' &&
            !response.body.singleResult.errors;
        },
      };
    },
  };
}
